/**
 * The deposits API itself, over real HTTP against the local stack: idempotency, validation and its
 * envelopes, reading a deposit back, a deposit that waits for input, and secrets at rest.
 */
import { createHash, randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { keys } from '#shared/adapters/deposits-table-items';
import { expectDocumented } from '../support/contract.ts';
import { depositsUrl, depositWhen, otpAnswer, readDeposit, startDeposit } from '../support/deposits.ts';
import { localDynamoDb } from '../support/local-dynamodb.ts';
import { testOwnerDigests } from '../support/local-stack.ts';
import { appSecret, createUser, failed, type Reply, type TestUser } from '../support/sandbox.ts';

const dynamo = localDynamoDb();

/** The deposit's item in the deposits table, as it is stored. */
async function storedDeposit(depositId: string) {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: inject('tableNames').deposits,
      Key: { pk: `DEPOSIT#${depositId}`, sk: 'DEPOSIT' },
      ConsistentRead: true,
    }),
  );
  if (!Item) throw new Error(`no item for deposit ${depositId}`);
  return Item;
}

/** The item of the deposit's sealed credentials, beside it, if there is one. */
async function storedSealed(depositId: string) {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: inject('tableNames').deposits,
      Key: { pk: `DEPOSIT#${depositId}`, sk: 'SEALED' },
      ConsistentRead: true,
    }),
  );
  return Item;
}

/** A request to the deposits API with whatever headers and body (raw text or JSON) the test wants. */
async function rawCall(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<Reply> {
  const { headers = {}, body } = options;
  const response = await fetch(`${depositsUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: Reply['body'];
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`non-JSON answer ${response.status} from ${method} ${path}: ${text}`);
  }
  expectDocumented('deposits', method, path, response.status, parsed);
  return { status: response.status, body: parsed };
}

/** Every key of a JSON value, however deep. */
function allKeys(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(allKeys);
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) => [key, ...allKeys(inner)]);
  }
  return [];
}

function validBody(user: TestUser, overrides: Record<string, unknown> = {}) {
  return { appSecret, userSecret: user.userSecret, senderID: user.accountId, amount: 10, ...overrides };
}

describe('deposits API: idempotency', () => {
  it('answers a repeated request with the same deposit, and transfers once', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const key = `same-key-${randomUUID()}`;

    // act
    const first = await startDeposit(user, { amount: 33.5 }, key);
    const repeatedInFlight = await startDeposit(user, { amount: 33.5 }, key);
    const done = await depositWhen(user, first.body.operationID);
    const repeatedWhenDone = await startDeposit(user, { amount: 33.5 }, key);
    const bank = await user.state();

    // assess
    expect(first.status).toBe(202);
    expect(repeatedInFlight.status).toBe(200);
    expect(repeatedInFlight.body.operationID).toBe(first.body.operationID);
    expect(repeatedWhenDone.status).toBe(200);
    expect(repeatedWhenDone.body).toMatchObject({
      operationID: first.body.operationID,
      status: 'done',
      step: 'completed',
      reference: done.reference,
    });
    expect(bank.transfers).toHaveLength(1);
    expect(bank.transfers[0]).toMatchObject({ amount: 33.5, reference: done.reference });
    expect(bank.accounts[0].balance).toBe(user.balance - 33.5);
  });

  it('answers the same request sent five times at once with one deposit, and transfers once', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const key = `at-once-${randomUUID()}`;

    const replies = await Promise.all(
      Array.from({ length: 5 }, () => startDeposit(user, { amount: 14 }, key)),
    );
    const ids = new Set(replies.map((reply) => reply.body.operationID));
    const [id] = [...ids];
    const done = await depositWhen(user, String(id));

    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 200, 202]);
    expect(ids.size).toBe(1);
    expect(done.status).toBe('done');
    expect((await user.state()).transfers).toHaveLength(1);
  });

  it('refuses the same key for a different request: IDEMPOTENCY_KEY_REUSED', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const key = `reused-${randomUUID()}`;
    const first = await startDeposit(user, { amount: 20 }, key);

    const otherAmount = await startDeposit(user, { amount: 21 }, key);
    const otherWallet = await startDeposit(user, { amount: 20, walletAccountID: 'wallet-kwd' }, key);
    const done = await depositWhen(user, first.body.operationID);

    expect(first.status).toBe(202);
    expect(otherAmount.status).toBe(409);
    expect(otherAmount.body).toEqual(failed('IDEMPOTENCY_KEY_REUSED'));
    expect(otherAmount.body.operationID).toBeUndefined();
    expect(otherWallet.status).toBe(409);
    expect(otherWallet.body).toEqual(failed('IDEMPOTENCY_KEY_REUSED'));
    expect(done).toMatchObject({ status: 'done', amount: 20 });
    expect((await user.state()).transfers).toHaveLength(1);
  });

  it('keeps keys per connection: another user may use the same key for their own deposit', async () => {
    const alice = await createUser('SANDBOX_BENEFICIARY');
    const bob = await createUser('SANDBOX_BENEFICIARY');
    const key = `shared-${randomUUID()}`;

    const forAlice = await startDeposit(alice, { amount: 15 }, key);
    const forBob = await startDeposit(bob, { amount: 16 }, key);
    const aliceDone = await depositWhen(alice, forAlice.body.operationID);
    const bobDone = await depositWhen(bob, forBob.body.operationID);

    expect(forAlice.status).toBe(202);
    expect(forBob.status).toBe(202);
    expect(forBob.body.operationID).not.toBe(forAlice.body.operationID);
    expect(aliceDone).toMatchObject({ status: 'done', amount: 15 });
    expect(bobDone).toMatchObject({ status: 'done', amount: 16 });
    expect((await alice.state()).transfers.map((t: { amount: number }) => t.amount)).toEqual([15]);
    expect((await bob.state()).transfers.map((t: { amount: number }) => t.amount)).toEqual([16]);
  });
});

describe('deposits API: requests it refuses', () => {
  it('refuses a create without Idempotency-Key: BAD_REQUEST naming the header', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const answer = await rawCall('POST', '/v1/deposits/create', {
      headers: { authorization: `Bearer ${user.accessToken}` },
      body: validBody(user),
    });

    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(failed('BAD_REQUEST'));
    expect(answer.body.details.join(' ')).toContain('Idempotency-Key');
    expect((await user.state()).transfers).toEqual([]);
  });

  it.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['with a space', 'two words'],
  ])('refuses an Idempotency-Key %s: BAD_REQUEST naming the header', async (_name, key) => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const answer = await startDeposit(user, { amount: 10 }, key);

    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(failed('BAD_REQUEST'));
    expect(answer.body.details.join(' ')).toContain('Idempotency-Key');
  });

  it('refuses a create without a bearer token: UNAUTHORIZED', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const answer = await rawCall('POST', '/v1/deposits/create', {
      headers: { 'idempotency-key': randomUUID() },
      body: validBody(user),
    });

    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(failed('UNAUTHORIZED'));
  });

  const invalidBodies: [string, (user: TestUser) => unknown][] = [
    ['a body that is not JSON', () => '{"amount": 10,'],
    ['an empty body', () => ''],
    ['a JSON array', (user) => [validBody(user)]],
    ['no amount', (user) => ({ ...validBody(user), amount: undefined })],
    ['the amount as a string', (user) => validBody(user, { amount: '10' })],
    ['a zero amount', (user) => validBody(user, { amount: 0 })],
    ['a negative amount', (user) => validBody(user, { amount: -10 })],
    ['more decimals than AED allows', (user) => validBody(user, { amount: 10.123 })],
    ['no userSecret', (user) => ({ ...validBody(user), userSecret: undefined })],
    ['an empty userInputs list', (user) => validBody(user, { userInputs: [] })],
  ];

  it.each(invalidBodies)('answers %s with BAD_REQUEST, never 500', async (_name, body) => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const answer = await rawCall('POST', '/v1/deposits/create', {
      headers: { authorization: `Bearer ${user.accessToken}`, 'idempotency-key': randomUUID() },
      body: body(user),
    });

    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(failed('BAD_REQUEST'));
    expect(answer.body.details).toEqual(expect.arrayContaining([expect.any(String)]));
  });

  it('does not spend the key on a refused request: the same key then starts the corrected deposit', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const key = `corrected-${randomUUID()}`;

    const refused = await startDeposit(user, { amount: 10.123 }, key);
    const corrected = await startDeposit(user, { amount: 10.12 }, key);
    const done = await depositWhen(user, corrected.body.operationID);

    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(failed('BAD_REQUEST'));
    expect(refused.body.details.join(' ')).toContain('amount');
    expect(corrected.status).toBe(202);
    expect(done).toMatchObject({ status: 'done', amount: 10.12 });
  });

  it('refuses a wallet account it does not have: INVALID_WALLET_ACCOUNT_ID', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const answer = await startDeposit(user, { amount: 10, walletAccountID: 'wallet-nope' });

    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(failed('INVALID_WALLET_ACCOUNT_ID'));
    expect((await user.state()).transfers).toEqual([]);
  });

  it("refuses an amount over the wallet account's largest: AMOUNT_ABOVE_MAXIMUM, nothing started", async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const key = `too-much-${randomUUID()}`;

    const answer = await startDeposit(user, { amount: 100_000.01 }, key);
    const corrected = await startDeposit(user, { amount: 10 }, key);

    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(failed('AMOUNT_ABOVE_MAXIMUM'));
    expect(answer.body.msg).toBe('The largest deposit into wallet-aed is 100000 AED');
    // Nothing was stored under the key: the same key starts the corrected deposit.
    expect(corrected.status).toBe(202);
  });

  it('answers unknown routes with a NOT_FOUND envelope, a wrong method with 405, and /health with 200', async () => {
    const unknownPath = await rawCall('POST', '/v1/deposits/refund', { body: {} });
    const wrongMethod = await rawCall('GET', '/v1/deposits/create');
    const health = await rawCall('GET', '/health');

    expect(unknownPath.status).toBe(404);
    expect(unknownPath.body).toEqual(failed('NOT_FOUND'));
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body).toEqual(failed('METHOD_NOT_ALLOWED'));
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });
  });
});

describe('deposits API: reading a deposit', () => {
  it('answers an unknown id with DEPOSIT_NOT_FOUND', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const answer = await readDeposit(user, `dep_${randomUUID()}`);

    expect(answer.status).toBe(404);
    expect(answer.body).toEqual(failed('DEPOSIT_NOT_FOUND'));
  });

  it('shows a done deposit with its history and without any secret', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const started = await startDeposit(user, { amount: 47.1 });
    await depositWhen(user, started.body.operationID);

    const read = await readDeposit(user, started.body.operationID);

    expect(read.status).toBe(200);
    const view = read.body;
    expect(view).toMatchObject({
      operationID: started.body.operationID,
      success: true,
      status: 'done',
      step: 'completed',
      amount: 47.1,
      currency: 'AED',
      walletAccountID: 'wallet-aed',
      reference: expect.any(String),
    });
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    expect(view.createdAt).toMatch(iso);
    expect(view.updatedAt).toMatch(iso);
    expect(Date.parse(view.updatedAt)).toBeGreaterThanOrEqual(Date.parse(view.createdAt));
    expect(view.history.length).toBeGreaterThanOrEqual(2);
    for (const entry of view.history) {
      expect(entry).toMatchObject({ step: expect.any(String), status: expect.any(String) });
      expect(entry.at).toMatch(iso);
    }
    expect(view.history[0]).toMatchObject({ step: 'resolve-bank', status: 'initialized' });
    expect(view.history.at(-1)).toMatchObject({ step: 'completed', status: 'done' });
    const keys = allKeys(view);
    expect(keys.filter((key) => /sealed|secret|token/i.test(key))).toEqual([]);
    const text = JSON.stringify(view);
    expect(text).not.toContain(user.accessToken);
    expect(text).not.toContain(user.userSecret);
    expect(text).not.toContain(appSecret);
  });

  it('answers a read without a bearer token to the backend that created it, and to no other (issue 32)', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const started = await startDeposit(user, { amount: 10 });
    const body = { appSecret, userSecret: user.userSecret, operationID: started.body.operationID };

    const byItsBackend = await rawCall('POST', '/v1/deposits/get', { body });
    const byAnother = await rawCall('POST', '/v1/deposits/get', {
      headers: { 'x-local-caller': 'another-backend' },
      body,
    });

    expect(started.status).toBe(202);
    expect(byItsBackend.status).toBe(200);
    expect(byItsBackend.body.operationID).toBe(started.body.operationID);
    expect(byAnother.status).toBe(404);
    expect(byAnother.body).toEqual(failed('DEPOSIT_NOT_FOUND'));
  });
});

describe('deposits API: a deposit waiting for input', () => {
  it('answers a repeat without userInputs with the deposit as it stands; a repeat with them resumes it', async () => {
    const user = await createUser('SANDBOX_OTP');
    const key = `waiting-${randomUUID()}`;
    const started = await startDeposit(user, { amount: 40 }, key);
    const asked = await depositWhen(user, started.body.operationID, (d) => d.status !== 'initialized');

    const repeated = await startDeposit(user, { amount: 40 }, key);
    const stillWaiting = await readDeposit(user, started.body.operationID);
    const answered = await startDeposit(user, { amount: 40, userInputs: otpAnswer(asked) }, key);
    const next = await depositWhen(
      user,
      started.body.operationID,
      (d) => d.step !== 'ensure-beneficiary' && d.status !== 'initialized',
    );

    expect(asked).toMatchObject({
      status: 'user_input_required',
      step: 'ensure-beneficiary',
      userInputs: [{ id: 'otp', answer: '' }],
      inputExpiresAt: expect.any(String),
    });
    expect(repeated.status).toBe(200);
    expect(repeated.body).toMatchObject({
      operationID: started.body.operationID,
      status: 'user_input_required',
      step: 'ensure-beneficiary',
      userInputs: asked.userInputs,
    });
    expect(stillWaiting.body.status).toBe('user_input_required');
    expect(stillWaiting.body.updatedAt).toBe(asked.updatedAt);
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ operationID: started.body.operationID, status: 'initialized' });
    expect(answered.body.userInputs).toBeUndefined();
    // The beneficiary was created with the answer; the bank now asks again, for the transfer.
    expect(next).toMatchObject({ status: 'user_input_required', step: 'transfer' });
    expect((await user.state()).transfers).toEqual([]);
  });
});

describe('deposits API: secrets at rest', () => {
  it("keys the deposit and its idempotency record by keyed digests under the stack's owner key, never a bare SHA-256", async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const key = randomUUID();
    const started = await startDeposit(user, { amount: 10 }, key);
    const item = await storedDeposit(started.body.operationID);
    const ownerKey = testOwnerDigests.of(user.accessToken);
    const { Item: record } = await dynamo.send(
      new GetCommand({
        TableName: inject('tableNames').deposits,
        Key: keys.idempotency(ownerKey, key),
        ConsistentRead: true,
      }),
    );

    expect(item.ownerKey).toBe(ownerKey);
    expect(item.readerKey).toBe(testOwnerDigests.of(user.userSecret));
    expect(record).toMatchObject({ depositId: started.body.operationID });
    const sha256 = (secret: string) => createHash('sha256').update(secret).digest('base64url');
    const text = JSON.stringify([item, record]);
    for (const secret of [user.accessToken, user.userSecret]) {
      expect(text).not.toContain(sha256(secret));
      expect(text).not.toContain(secret);
    }
  });

  it('keeps the credentials sealed while the deposit runs, and drops them when it ends', async () => {
    const user = await createUser('SANDBOX_OTP');
    const key = `at-rest-${randomUUID()}`;
    const started = await startDeposit(user, { amount: 30 }, key);
    const id: string = started.body.operationID;

    const asked = await depositWhen(user, id, (d) => d.status !== 'initialized');
    const waiting = await storedDeposit(id);
    const waitingSealed = await storedSealed(id);
    await startDeposit(user, { amount: 30, userInputs: otpAnswer(asked) }, key);
    const askedAgain = await depositWhen(
      user,
      id,
      (d) => d.step === 'transfer' && d.status !== 'initialized',
    );
    await startDeposit(user, { amount: 30, userInputs: otpAnswer(askedAgain) }, key);
    const done = await depositWhen(user, id);
    const ended = await storedDeposit(id);

    expect(asked.status).toBe('user_input_required');
    expect(waiting).toMatchObject({ status: 'user_input_required' });
    // The credentials live beside the deposit, sealed, in an item no index or outbox sees.
    expect(waiting).not.toHaveProperty('sealedCredentials');
    expect(waitingSealed).toMatchObject({ sealedCredentials: expect.stringMatching(/^v2\./) });
    const waitingText = JSON.stringify([waiting, waitingSealed]);
    expect(waitingText).not.toContain(user.accessToken);
    expect(waitingText).not.toContain(user.userSecret);
    expect(waitingText).not.toContain(appSecret);
    expect(done.status).toBe('done');
    expect(ended.status).toBe('done');
    expect(ended).not.toHaveProperty('sealedCredentials');
    expect(ended).not.toHaveProperty('sealedAnswers');
    expect(await storedSealed(id)).toBeUndefined();
    const endedText = JSON.stringify(ended);
    expect(endedText).not.toContain(user.accessToken);
    expect(endedText).not.toContain(user.userSecret);
  });

  it('drops the sealed credentials of a failed deposit too', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const started = await startDeposit(user, { amount: 5 });

    const ended = await depositWhen(user, started.body.operationID);
    const item = await storedDeposit(started.body.operationID);

    expect(ended).toMatchObject({ status: 'failed', type: 'AMOUNT_BELOW_MINIMUM' });
    expect(item.status).toBe('failed');
    expect(item).not.toHaveProperty('sealedCredentials');
    expect(item).not.toHaveProperty('sealedAnswers');
    expect(await storedSealed(started.body.operationID)).toBeUndefined();
    expect(JSON.stringify(item)).not.toContain(user.accessToken);
  });
});
