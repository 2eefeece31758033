/**
 * The typed deposits client against the running stack. The only stand-in is a fault: a fetch that
 * loses a request or its answer on the way, around the real one.
 */
import { describe, expect, it } from 'vitest';
import { DepositsApiError, DepositsClient, DepositsUnavailable } from '#shared/deposits-api/client';
import { depositsUrl } from '../support/deposits.ts';
import { appSecret, createUser } from '../support/sandbox.ts';

/**
 * The real fetch, except the attempts `lose` names: lost before sending, sent and the answer lost, or
 * answered by the gateway itself (API Gateway's throttle or unavailable answers) without reaching it.
 */
function faultyFetch(lose: Record<number, 'request' | 'answer' | 429 | 503>) {
  const seen: { url: string; headers: Record<string, string>; body: string; answer?: unknown }[] = [];
  const wrapped = async (url: string | URL | Request, init?: RequestInit) => {
    const attempt = seen.length + 1;
    const call = {
      url: String(url),
      headers: init?.headers as Record<string, string>,
      body: String(init?.body),
    };
    seen.push(call);
    const fault = lose[attempt];
    if (fault === 'request') throw new TypeError('fetch failed: connect ECONNREFUSED');
    if (typeof fault === 'number') {
      const message = fault === 429 ? 'Too Many Requests' : 'Service Unavailable';
      return new Response(JSON.stringify({ message }), { status: fault });
    }
    const response = await fetch(url, init);
    if (lose[attempt] === 'answer') {
      (call as { answer?: unknown }).answer = await response.json();
      throw new TypeError('fetch failed: socket hang up');
    }
    return response;
  };
  return { fetch: wrapped as typeof fetch, seen };
}

async function connectionOf(bankId = 'SANDBOX_BENEFICIARY') {
  const user = await createUser(bankId);
  return { user, connection: { accessToken: user.accessToken, appSecret, userSecret: user.userSecret } };
}

describe('the typed deposits client', () => {
  it('sends a create whose answer was lost again with the same key: one deposit, answered as it stands', async () => {
    // prepare
    const { user, connection } = await connectionOf();
    const faults = faultyFetch({ 1: 'answer' });
    const client = new DepositsClient({ baseUrl: depositsUrl, fetch: faults.fetch, retryDelayMs: 10 });

    // act
    const created = await client.create(connection, { amount: 12.5, senderID: user.accountId });
    const listed = await client.list(connection);

    // assess
    const creates = faults.seen.filter((call) => call.url.endsWith('/v1/deposits/create'));
    expect(creates).toHaveLength(2);
    expect(creates[1]?.headers['idempotency-key']).toBe(creates[0]?.headers['idempotency-key']);
    expect(creates[1]?.body).toBe(creates[0]?.body);
    const lost = faults.seen[0]?.answer as { operationID: string };
    expect(created).toMatchObject({ status: 200, body: { operationID: lost.operationID, amount: 12.5 } });
    expect(listed.body.deposits.map((deposit) => deposit.operationID)).toEqual([lost.operationID]);
  });

  it('sends a create that never left again: the deposit starts (202)', async () => {
    // prepare
    const { user, connection } = await connectionOf();
    const faults = faultyFetch({ 1: 'request', 2: 'request' });
    const client = new DepositsClient({ baseUrl: depositsUrl, fetch: faults.fetch, retryDelayMs: 10 });

    // act
    const created = await client.create(connection, { amount: 3, senderID: user.accountId }, 'order-4711');

    // assess
    expect(faults.seen.map((call) => call.headers['idempotency-key'])).toEqual([
      'order-4711',
      'order-4711',
      'order-4711',
    ]);
    expect(created.status).toBe(202);
    expect(created.body).toMatchObject({ status: 'initialized', step: 'resolve-bank', amount: 3 });
  });

  it('sends a create the gateway throttled or could not serve again: the deposit starts', async () => {
    // prepare
    const { user, connection } = await connectionOf();
    const faults = faultyFetch({ 1: 429, 2: 503 });
    const client = new DepositsClient({ baseUrl: depositsUrl, fetch: faults.fetch, retryDelayMs: 10 });

    // act
    const created = await client.create(connection, { amount: 4, senderID: user.accountId });

    // assess
    expect(faults.seen).toHaveLength(3);
    expect(created).toMatchObject({ status: 202, body: { amount: 4 } });
  });

  it('does not repeat a read: a throttled get is DepositsUnavailable at once', async () => {
    // prepare
    const { connection } = await connectionOf();
    const faults = faultyFetch({ 1: 429 });
    const client = new DepositsClient({ baseUrl: depositsUrl, fetch: faults.fetch, retryDelayMs: 10 });

    // act
    const read = client.get(connection, 'dep_01M812W7SXHYZAEH7814YWVTV8');

    // assess
    await expect(read).rejects.toMatchObject({
      name: 'DepositsUnavailable',
      reason: 'throttled',
      httpStatus: 429,
    });
    expect(faults.seen).toHaveLength(1);
  });

  it('gives up after its retries: DepositsUnavailable, and nothing started', async () => {
    // prepare
    const { user, connection } = await connectionOf();
    const faults = faultyFetch({ 1: 'request', 2: 'request', 3: 'request' });
    const client = new DepositsClient({
      baseUrl: depositsUrl,
      fetch: faults.fetch,
      retries: 2,
      retryDelayMs: 10,
    });

    // act
    const attempt = client.create(connection, { amount: 3, senderID: user.accountId });

    // assess
    await expect(attempt).rejects.toBeInstanceOf(DepositsUnavailable);
    await expect(attempt).rejects.toMatchObject({ reason: 'network' });
    expect(faults.seen).toHaveLength(3);
    const listing = new DepositsClient({ baseUrl: depositsUrl });
    expect((await listing.list(connection)).body.deposits).toEqual([]);
  });

  it('throws a refusal as DepositsApiError with its envelope, and does not repeat it', async () => {
    // prepare
    const { user, connection } = await connectionOf();
    const faults = faultyFetch({});
    const client = new DepositsClient({ baseUrl: depositsUrl, fetch: faults.fetch });

    // act
    const attempt = client.create(connection, { amount: 1.005, senderID: user.accountId });

    // assess
    await expect(attempt).rejects.toBeInstanceOf(DepositsApiError);
    await expect(attempt).rejects.toMatchObject({
      httpStatus: 400,
      type: 'BAD_REQUEST',
      requestId: expect.any(String),
    });
    expect(faults.seen).toHaveLength(1);
  });

  it('reads, lists and cancels, and sends what authorize adds to every request', async () => {
    // prepare
    const { user, connection } = await connectionOf('SANDBOX_COOLDOWN');
    const faults = faultyFetch({});
    const client = new DepositsClient({
      baseUrl: depositsUrl,
      fetch: faults.fetch,
      authorize: (request) => ({ 'x-backend-proof': `signed ${request.url.split('/').at(-1)}` }),
    });

    // act
    const { body: started } = await client.create(connection, { amount: 20, senderID: user.accountId });
    const read = await client.get(connection, started.operationID);
    const cancelled = await client.cancel(connection, started.operationID);
    const listed = await client.list(connection, { limit: 1 });

    // assess
    expect(read.body.operationID).toBe(started.operationID);
    expect(cancelled.body).toMatchObject({ status: 'failed', type: 'CANCELLED' });
    expect(listed.body.deposits).toEqual([expect.objectContaining({ operationID: started.operationID })]);
    expect(faults.seen.map((call) => call.headers['x-backend-proof'])).toEqual([
      'signed create',
      'signed get',
      'signed cancel',
      'signed list',
    ]);
    expect(
      faults.seen.every((call) => call.headers['x-provider-authorization'] === `Bearer ${user.accessToken}`),
    ).toBe(true);
    expect(faults.seen.every((call) => call.headers.authorization === undefined)).toBe(true);
  });
});
