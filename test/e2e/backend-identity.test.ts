/**
 * Reads by the backend's own identity, over real HTTP against the local stack:
 * the backend that created a deposit (locally the gateway's caller: `local-backend`, or the one
 * `X-Local-Caller` names) reads, lists and cancels it by its id alone, no user secret; a second
 * backend sees nothing of it, whatever it sends; a request shaped as before (the connection's token
 * and both secrets) keeps working, and sees only that connection's deposits.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectDocumented } from '../support/contract.ts';
import { depositsUrl, readDeposit, startDeposit } from '../support/deposits.ts';
import { appSecret, createUser, eventually, failed, type Reply, type TestUser } from '../support/sandbox.ts';

/** A call of the deposits API as a backend (the local caller `as`, by default the stack's one), nothing of a user. */
async function asBackend(path: string, body: Record<string, unknown>, as?: string): Promise<Reply> {
  const response = await fetch(`${depositsUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(as ? { 'x-local-caller': as } : {}) },
    body: JSON.stringify(body),
  });
  const reply = { status: response.status, body: (await response.json()) as Reply['body'] };
  expectDocumented('deposits', 'POST', path, reply.status, reply.body);
  return reply;
}

/** A deposit created by the backend `as` (a backend of this test's own, so its list is the test's alone). */
async function createAs(as: string, user: TestUser, amount: number): Promise<string> {
  const response = await fetch(`${depositsUrl}/v1/deposits/create`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-local-caller': as,
      authorization: `Bearer ${user.accessToken}`,
      'idempotency-key': randomUUID(),
    },
    body: JSON.stringify({ appSecret, userSecret: user.userSecret, amount, senderID: user.accountId }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { operationID: string }).operationID;
}

/** Reads the deposit as the backend `as` until `stop` says so. */
function whenAs(as: string, operationID: string, stop: (deposit: Reply['body']) => boolean) {
  return eventually(async () => {
    const { body } = await asBackend('/v1/deposits/get', { operationID }, as);
    return stop(body) ? body : undefined;
  }, 20_000);
}

const backendName = () => `backend-${randomUUID().slice(0, 8)}`;

const ids = (reply: Reply) => (reply.body.deposits as { operationID: string }[]).map((d) => d.operationID);

describe('the backend that created a deposit', () => {
  it("reads it by its id alone (the stack's own backend, as every deposit of the other tests)", async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const started = await startDeposit(user, { amount: 11 });

    const read = await asBackend('/v1/deposits/get', { operationID: started.body.operationID });

    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ operationID: started.body.operationID, amount: 11 });
  });

  it('lists its deposits of every connection, newest first; by status when asked; by connection with its token', async () => {
    // prepare: a backend of the test's own, two users
    const backend = backendName();
    const alice = await createUser('SANDBOX_BENEFICIARY');
    const bob = await createUser('SANDBOX_COOLDOWN');
    const alices = await createAs(backend, alice, 13);
    const bobs = await createAs(backend, bob, 14);
    await whenAs(backend, alices, (deposit) => deposit.status === 'done');

    // act
    const all = await asBackend('/v1/deposits/list', { limit: 10 }, backend);
    const done = await asBackend('/v1/deposits/list', { status: 'done', limit: 10 }, backend);
    const bobOnly = await fetch(`${depositsUrl}/v1/deposits/list`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-local-caller': backend,
        authorization: `Bearer ${bob.accessToken}`,
      },
      body: JSON.stringify({}),
    });

    // assess
    expect(ids(all)).toEqual([bobs, alices]);
    expect(ids(done)).toEqual([alices]);
    expect(
      ((await bobOnly.json()) as Reply['body']).deposits.map((d: { operationID: string }) => d.operationID),
    ).toEqual([bobs]);
  });

  it('cancels it by its id alone', async () => {
    const user = await createUser('SANDBOX_COOLDOWN');
    const started = await startDeposit(user, { amount: 15 });
    await eventually(async () => {
      const { body } = await asBackend('/v1/deposits/get', { operationID: started.body.operationID });
      return body.step === 'wait-cooldown' ? body : undefined;
    });

    const cancelled = await asBackend('/v1/deposits/cancel', { operationID: started.body.operationID });

    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'failed', type: 'CANCELLED' });
  });
});

describe('a second backend', () => {
  it("sees nothing of the first one's deposit: not by id, not in its list, not with the secrets, not to cancel", async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const started = await startDeposit(user, { amount: 16 });
    const id = started.body.operationID;
    const second = `second-backend-${randomUUID().slice(0, 8)}`;

    // act
    const read = await asBackend('/v1/deposits/get', { operationID: id }, second);
    const listed = await asBackend('/v1/deposits/list', { limit: 100 }, second);
    const cancel = await asBackend('/v1/deposits/cancel', { operationID: id }, second);
    const withSecrets = await fetch(`${depositsUrl}/v1/deposits/get`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-local-caller': second,
        authorization: `Bearer ${user.accessToken}`,
      },
      body: JSON.stringify({ userSecret: user.userSecret, operationID: id }),
    });

    // assess
    expect(read).toEqual({ status: 404, body: failed('DEPOSIT_NOT_FOUND') });
    expect(listed.status).toBe(200);
    expect(listed.body.deposits).toEqual([]);
    expect(cancel).toEqual({ status: 404, body: failed('DEPOSIT_NOT_FOUND') });
    expect(withSecrets.status).toBe(404);
    // And the first backend still has it, untouched.
    expect((await readDeposit(user, id)).body).toMatchObject({ operationID: id });
  });

  it('may not name itself anyhow: a bad X-Local-Caller is 400', async () => {
    const reply = await asBackend('/v1/deposits/list', {}, 'not a name!');

    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ type: 'BAD_REQUEST', msg: expect.stringContaining('X-Local-Caller') });
  });
});
