/**
 * The bank's pace over real HTTP: a request sent with `sync: true` waits as long as the bank takes
 * (the user's `asyncDelaySeconds`), as `sync: false` would be `initialized` that long; a question
 * holds the user's connection exactly its lifetime; SANDBOX_RATE_LIMITED answers the sixth call in
 * 10 seconds `429 TOO_MANY_REQUESTS` with `Retry-After`, before anything happens, and an orchestrated
 * deposit there waits it out and ends done with exactly one transfer.
 */
import { describe, expect, it } from 'vitest';
import { depositWhen, startDeposit } from '../support/deposits.ts';
import {
  appSecret,
  createUser,
  failed,
  givenBeneficiary,
  sandboxUrl,
  stateOf,
  type TestUser,
} from '../support/sandbox.ts';

/** A provider call answered as it came: status, `Retry-After` and body. */
async function rawCall(user: TestUser, path: string, body: Record<string, unknown>) {
  const response = await fetch(`${sandboxUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${user.accessToken}` },
    body: JSON.stringify({ appSecret, userSecret: user.userSecret, ...body }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

describe('sync: true at a bank that takes time', () => {
  it('a transfer at a user whose bank takes 1 s answers done after about 1 s', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY', { asyncDelaySeconds: 1 });
    const receiverID = await givenBeneficiary(user);
    const startedAt = Date.now();

    // act
    const done = await user.call('/v1/payment/transfer/create', {
      sync: true,
      amount: 40,
      senderID: user.accountId,
      receiverID,
    });
    const tookMs = Date.now() - startedAt;
    const next = await user.call('/v1/metadata/accounts/get', { sync: false });

    // assess
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      operationID: expect.stringMatching(/\S/),
      success: true,
      status: 'done',
      reference: expect.stringMatching(/\S/),
    });
    expect(tookMs).toBeGreaterThanOrEqual(1_000);
    expect(tookMs).toBeLessThan(4_000);
    // The connection is free once the answer is given.
    expect(next.status).toBe(202);
    const { transfers } = await stateOf(user);
    expect(transfers).toEqual([expect.objectContaining({ reference: done.body.reference, amount: 40 })]);
  });
});

describe('a question holds the connection exactly its lifetime', () => {
  it('busy until the question expires (inputTtlSeconds: 2), free from then on', async () => {
    // prepare
    const user = await createUser('SANDBOX_OTP', { inputTtlSeconds: 2, asyncDelaySeconds: 0 });
    const balance = () => user.call('/v2/data/balance/get', { cardID: user.cardId, sync: true });
    const asked = await balance();
    const askedAt = Date.now();

    // act
    const whileAsked = await user.call('/v1/metadata/accounts/get', { sync: true });
    const whileAskedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2_000 - (Date.now() - askedAt) + 50));
    const afterwards = await user.call('/v1/metadata/accounts/get', { sync: true });
    const readBack = await user.call('/v1/operation/get', { operationID: asked.body.operationID });

    // assess
    expect(asked.body).toMatchObject({ success: true, status: 'user_input_required' });
    expect(whileAskedAt - askedAt).toBeLessThan(1_500);
    expect(whileAsked.status).toBe(409);
    expect(whileAsked.body).toEqual(failed('OPERATION_IN_PROGRESS'));
    expect(afterwards.status).toBe(200);
    expect(afterwards.body).toMatchObject({ success: true, status: 'done' });
    expect(readBack.body).toMatchObject({ status: 'failed', type: 'USER_INPUT_EXPIRED' });
  });
});

describe('SANDBOX_RATE_LIMITED: 5 calls per connection in any 10 seconds', () => {
  it('answers the sixth call 429 TOO_MANY_REQUESTS with Retry-After, before effect; other users are not limited', async () => {
    // prepare
    const user = await createUser('SANDBOX_RATE_LIMITED', { asyncDelaySeconds: 0 });
    const other = await createUser('SANDBOX_RATE_LIMITED', { asyncDelaySeconds: 0 });
    const receiverID = await givenBeneficiary(user);
    const transfer = () =>
      rawCall(user, '/v1/payment/transfer/create', {
        sync: true,
        amount: 10,
        senderID: user.accountId,
        receiverID,
      });

    // act: the list and the creation and the list again made 3 calls; 2 more, then one too many
    const allowed = [await transfer(), await transfer()];
    const limited = await transfer();
    const otherUser = await rawCall(other, '/v1/metadata/accounts/get', { sync: true });
    const { transfers } = await stateOf(user);

    // assess
    expect(allowed.map((reply) => reply.status)).toEqual([200, 200]);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual(failed('TOO_MANY_REQUESTS'));
    const retryAfter = Number(limited.retryAfter);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect(transfers).toHaveLength(2);
    expect(otherUser.status).toBe(200);
  });

  it('an orchestrated deposit waits the limit out and ends done with exactly one transfer', async () => {
    // prepare
    const user = await createUser('SANDBOX_RATE_LIMITED');

    // act
    const started = await startDeposit(user, { amount: 33 });
    const ended = await depositWhen(user, started.body.operationID, undefined, 40_000);
    const again = await startDeposit(user, { amount: 34 });
    const endedAgain = await depositWhen(user, again.body.operationID, undefined, 40_000);

    // assess
    expect(ended, JSON.stringify(ended)).toMatchObject({ status: 'done', reference: expect.any(String) });
    expect(endedAgain, JSON.stringify(endedAgain)).toMatchObject({ status: 'done' });
    // The bank's limit was met on the way (a 429 is "later": the deposit waited, then went on).
    const notes = [...ended.history, ...endedAgain.history].map((entry: { note?: string }) => entry.note);
    const later = notes.filter((note) => note === 'connection busy' || note?.includes('TOO_MANY_REQUESTS'));
    expect(later.length, JSON.stringify(notes)).toBeGreaterThan(0);
    const { transfers } = await stateOf(user);
    expect(transfers.map((transfer) => [transfer.amount, transfer.reference])).toEqual([
      [33, ended.reference],
      [34, endedAgain.reference],
    ]);
  }, 90_000);
});
