/**
 * What the deposits API refuses, over real HTTP against the local stack: a create without its key,
 * token or a valid body, a wallet account it does not have, an amount over the account's largest,
 * unknown routes and methods. Each in the spec's envelope, never a 500, and a refused request spends
 * no key.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { depositWhen, rawCall, startDeposit } from '../support/deposits.ts';
import { appSecret, createUser, failed, type TestUser } from '../support/sandbox.ts';

function validBody(user: TestUser, overrides: Record<string, unknown> = {}) {
  return { appSecret, userSecret: user.userSecret, senderID: user.accountId, amount: 10, ...overrides };
}

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
