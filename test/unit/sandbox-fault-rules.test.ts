/**
 * Fault controls: per-request `X-Sandbox-*` headers and per-user rules set through
 * `POST /sandbox/faults`. Latency, errors and timeouts `before` the bank sees a request (nothing
 * happens) and `after` it took effect (the unknown-outcome case), a client that gives up, and
 * refusals that name their operation (`namesOperation`) with their `Retry-After`.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import {
  appSecret,
  clock,
  createUser,
  failed,
  failedOperation,
  faultsOf,
  givenBeneficiary,
  post,
  type Reply,
  rawRequest,
  request,
  stateOf,
  type TestUser,
  walletBeneficiary,
} from '../support/in-process-sandbox.ts';

const TRANSFER = '/v1/payment/transfer/create';
const METADATA = '/v1/metadata/accounts/get';

/** A user of the beneficiary bank with the wallet beneficiary, and a transfer of 40 AED to it. */
async function givenTransferringUser() {
  const user = await createUser('SANDBOX_BENEFICIARY');
  const receiverID = await givenBeneficiary(user);
  const transfer = (headers: Record<string, string> = {}) =>
    user.call(TRANSFER, { sync: true, amount: 40, senderID: user.accountId, receiverID }, headers);
  return { user, transfer };
}

const setFaults = (connectionID: string, faults: unknown[], secret = appSecret) =>
  post('/sandbox/faults', { appSecret: secret, connectionID, faults });

/** Runs `call` and measures how long the answer took, on the sandbox's clock. */
async function timed(call: () => Promise<Reply>): Promise<{ reply: Reply; elapsedMs: number }> {
  const started = clock.now();
  const reply = await call();
  return { reply, elapsedMs: clock.now() - started };
}

describe('fault headers on provider operations', () => {
  it('adds latency (X-Sandbox-Latency-Ms) and still completes the operation', async () => {
    // prepare
    const { user, transfer } = await givenTransferringUser();
    const before = await stateOf(user);

    // act
    const { reply, elapsedMs } = await timed(() => transfer({ 'x-sandbox-latency-ms': '500' }));

    // assess
    expect(elapsedMs).toBeGreaterThanOrEqual(500);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ success: true, status: 'done', reference: expect.any(String) });
    expect((await stateOf(user)).balance).toBe(before.balance - 40);
  });

  it('fails before the bank sees the transfer: 503 SERVICE_UNAVAILABLE, nothing debited', async () => {
    // prepare
    const { user, transfer } = await givenTransferringUser();
    const before = await stateOf(user);

    // act
    const reply = await transfer({
      'x-sandbox-fault': 'error',
      'x-sandbox-fault-status': '503',
      'x-sandbox-fault-phase': 'before',
    });
    const after = await stateOf(user);

    // assess
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual(failed('SERVICE_UNAVAILABLE'));
    expect(after.balance).toBe(before.balance);
    expect(after.transfers).toEqual([]);
  });

  it('loses the answer after the transfer took effect: 503, yet debited and recorded once', async () => {
    // prepare
    const { user, transfer } = await givenTransferringUser();
    const before = await stateOf(user);

    // act
    const reply = await transfer({
      'x-sandbox-fault': 'error',
      'x-sandbox-fault-status': '503',
      'x-sandbox-fault-phase': 'after',
    });
    const after = await stateOf(user);

    // assess
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual(failed('SERVICE_UNAVAILABLE'));
    expect(after.balance).toBe(before.balance - 40);
    expect(after.transfers).toHaveLength(1);
    expect(after.transfers[0]).toMatchObject({ amount: 40 });
  });

  it('times out (504 GATEWAY_TIMEOUT) after X-Sandbox-Timeout-Ms, before the bank: nothing debited', async () => {
    // prepare
    const { user, transfer } = await givenTransferringUser();
    const before = await stateOf(user);

    // act
    const { reply, elapsedMs } = await timed(() =>
      transfer({ 'x-sandbox-fault': 'timeout', 'x-sandbox-timeout-ms': '300' }),
    );
    const after = await stateOf(user);

    // assess
    expect(elapsedMs).toBeGreaterThanOrEqual(300);
    expect(reply.status).toBe(504);
    expect(reply.body).toEqual(failed('GATEWAY_TIMEOUT'));
    expect(after.balance).toBe(before.balance);
    expect(after.transfers).toEqual([]);
  });

  it('times out after the transfer took effect (phase after): 504, yet debited', async () => {
    // prepare
    const { user, transfer } = await givenTransferringUser();
    const before = await stateOf(user);

    // act
    const { reply, elapsedMs } = await timed(() =>
      transfer({
        'x-sandbox-fault': 'timeout',
        'x-sandbox-timeout-ms': '300',
        'x-sandbox-fault-phase': 'after',
      }),
    );
    const after = await stateOf(user);

    // assess
    expect(elapsedMs).toBeGreaterThanOrEqual(300);
    expect(reply.status).toBe(504);
    expect(reply.body).toEqual(failed('GATEWAY_TIMEOUT'));
    expect(after.balance).toBe(before.balance - 40);
    expect(after.transfers).toHaveLength(1);
  });

  it('answers 500 INTERNAL_ERROR by default, and 502 BAD_GATEWAY when asked', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const byDefault = await user.call(METADATA, { sync: true }, { 'x-sandbox-fault': 'error' });
    const badGateway = await user.call(
      METADATA,
      { sync: true },
      { 'x-sandbox-fault': 'error', 'x-sandbox-fault-status': '502' },
    );
    const healthy = await user.call(METADATA, { sync: true });

    // assess
    expect(byDefault.status).toBe(500);
    expect(byDefault.body).toEqual(failed('INTERNAL_ERROR'));
    expect(badGateway.status).toBe(502);
    expect(badGateway.body).toEqual(failed('BAD_GATEWAY'));
    expect(healthy.status).toBe(200);
    expect(healthy.body).toMatchObject({ success: true, status: 'done' });
  });

  it('refuses a fault header it does not understand (BAD_REQUEST)', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const reply = await user.call(
      METADATA,
      { sync: true },
      { 'x-sandbox-fault': 'error', 'x-sandbox-fault-status': '418' },
    );

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(failed('BAD_REQUEST'));
  });

  it('hangs a request for the timeout (SANDBOX_TIMEOUT_MS), answers 504, and keeps serving afterwards', async () => {
    // A client that gives up on the hang before it ends is the e2e pass's (test/e2e/sandbox-routes.test.ts).
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act: the sandbox hangs for SANDBOX_TIMEOUT_MS (1.5 s)
    const hung = await timed(() => user.call(METADATA, { sync: true }, { 'x-sandbox-fault': 'timeout' }));
    const health = await request('GET', '/health');
    const next = await user.call(METADATA, { sync: true });

    // assess
    expect(hung.reply.status).toBe(504);
    expect(hung.reply.body).toEqual(failed('GATEWAY_TIMEOUT'));
    expect(hung.elapsedMs).toBeGreaterThanOrEqual(1_500);
    expect(health.status).toBe(200);
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ success: true, status: 'done' });
  });
});

describe('fault rules per user (POST /sandbox/faults)', () => {
  it('fails only the first transfer with a counted rule on its path; metadata is unaffected', async () => {
    // prepare
    const { user, transfer } = await givenTransferringUser();
    const set = await setFaults(user.connectionID, [
      { path: TRANSFER, outcome: 'error', status: 500, times: 1 },
    ]);
    const before = await stateOf(user);
    const rulesBefore = await faultsOf(user);

    // act
    const meta = await user.call(METADATA, { sync: true });
    const first = await transfer();
    const afterFirst = await stateOf(user);
    const second = await transfer();
    const afterSecond = await stateOf(user);

    // assess
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      connectionID: user.connectionID,
      faults: [{ path: TRANSFER, outcome: 'error', status: 500, times: 1 }],
    });
    expect(meta.status).toBe(200);
    expect(meta.body).toMatchObject({ success: true, status: 'done' });
    expect(first.status).toBe(500);
    expect(first.body).toEqual(failed('INTERNAL_ERROR'));
    expect(afterFirst.balance).toBe(before.balance);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ success: true, status: 'done' });
    expect(afterSecond.balance).toBe(before.balance - 40);
    expect(afterSecond.transfers).toHaveLength(1);
    // The user's state tells which rule went off: the counted rule has none left.
    expect(rulesBefore).toEqual([{ path: TRANSFER, outcome: 'error', status: 500, times: 1, remaining: 1 }]);
    expect(await faultsOf(user)).toEqual([
      { path: TRANSFER, outcome: 'error', status: 500, times: 1, remaining: 0 },
    ]);
  });

  it('slows every request of one user only, until the rules are cleared with faults: []', async () => {
    // prepare
    const slowUser = await createUser('SANDBOX_BENEFICIARY');
    const otherUser = await createUser('SANDBOX_BENEFICIARY');
    await setFaults(slowUser.connectionID, [{ latencyMs: 600 }]);

    // act
    const slowMeta = await timed(() => slowUser.call(METADATA, { sync: true }));
    const slowList = await timed(() => slowUser.call('/v1/payment/beneficiaries/get', { sync: true }));
    const other = await timed(() => otherUser.call(METADATA, { sync: true }));
    const cleared = await setFaults(slowUser.connectionID, []);
    const fastAgain = await timed(() => slowUser.call(METADATA, { sync: true }));

    // assess
    expect(slowMeta.elapsedMs).toBeGreaterThanOrEqual(600);
    expect(slowMeta.reply.body).toMatchObject({ success: true, status: 'done' });
    expect(slowList.elapsedMs).toBeGreaterThanOrEqual(600);
    expect(slowList.reply.body).toMatchObject({ success: true, status: 'done' });
    expect(other.elapsedMs).toBeLessThan(600);
    expect(other.reply.body).toMatchObject({ success: true, status: 'done' });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ connectionID: slowUser.connectionID, faults: [] });
    expect(fastAgain.elapsedMs).toBeLessThan(600);
    expect(fastAgain.reply.body).toMatchObject({ success: true, status: 'done' });
  });

  it('lets a header fault win over the user rule', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    await setFaults(user.connectionID, [{ outcome: 'error', status: 503 }]);

    // act
    const byRule = await user.call(METADATA, { sync: true });
    const byHeader = await user.call(
      METADATA,
      { sync: true },
      { 'x-sandbox-fault': 'error', 'x-sandbox-fault-status': '502' },
    );

    // assess
    expect(byRule.status).toBe(503);
    expect(byRule.body).toEqual(failed('SERVICE_UNAVAILABLE'));
    expect(byHeader.status).toBe(502);
    expect(byHeader.body).toEqual(failed('BAD_GATEWAY'));
  });

  it('refuses a wrong appSecret (UNAUTHORIZED) and an invalid rule (BAD_REQUEST), setting no rule', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const wrongSecret = await setFaults(user.connectionID, [{ outcome: 'error' }], 'not-the-app-secret');
    const badStatus = await setFaults(user.connectionID, [{ outcome: 'error', status: 418 }]);
    const unaffected = await user.call(METADATA, { sync: true });

    // assess
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body).toEqual(failed('UNAUTHORIZED'));
    expect(badStatus.status).toBe(400);
    expect(badStatus.body).toEqual(failed('BAD_REQUEST'));
    expect(unaffected.status).toBe(200);
    expect(unaffected.body).toMatchObject({ success: true, status: 'done' });
  });
});

describe('fault headers on public routes', () => {
  it('fails GET /sandbox/banks with an error fault, and serves it without one', async () => {
    // act
    const faulty = await request('GET', '/sandbox/banks', undefined, { 'x-sandbox-fault': 'error' });
    const unavailable = await request('GET', '/sandbox/banks', undefined, {
      'x-sandbox-fault': 'error',
      'x-sandbox-fault-status': '503',
    });
    const healthy = await request('GET', '/sandbox/banks');

    // assess
    expect(faulty.status).toBe(500);
    expect(faulty.body).toEqual(failed('INTERNAL_ERROR'));
    expect(unavailable.status).toBe(503);
    expect(unavailable.body).toEqual(failed('SERVICE_UNAVAILABLE'));
    expect(healthy.status).toBe(200);
    expect(healthy.body.banks.length).toBeGreaterThan(0);
  });

  it('delays a public route with X-Sandbox-Latency-Ms', async () => {
    // act
    const { reply, elapsedMs } = await timed(() =>
      request('GET', '/health', undefined, { 'x-sandbox-latency-ms': '300' }),
    );

    // assess
    expect(elapsedMs).toBeGreaterThanOrEqual(300);
    expect(reply.status).toBe(200);
  });

  it('fails user creation before it happens (phase before)', async () => {
    // act
    const reply = await post(
      '/sandbox/users',
      { appSecret, bankId: 'SANDBOX_BENEFICIARY' },
      { 'x-sandbox-fault': 'error', 'x-sandbox-fault-status': '503' },
    );

    // assess
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual(failed('SERVICE_UNAVAILABLE'));
    expect(reply.body.connectionID).toBeUndefined();
  });
});

describe('a refusal that names its operation (namesOperation)', () => {
  const READ = '/v1/operation/get';

  /** A provider call answered as it came: status, `Retry-After` and body. */
  async function rawCall(user: TestUser, path: string, body: Record<string, unknown>, headers = {}) {
    const response = await rawRequest(
      'POST',
      path,
      JSON.stringify({ appSecret, userSecret: user.userSecret, ...body }),
      { 'content-type': 'application/json', authorization: `Bearer ${user.accessToken}`, ...headers },
    );
    return {
      status: response.status,
      retryAfter: response.headers['retry-after'] ?? null,
      body: JSON.parse(response.text) as Record<string, unknown>,
    };
  }

  it('on the operation read: 429 with Retry-After, naming the operation read; the next read answers it', async () => {
    // prepare
    const { user, transfer } = await givenTransferringUser();
    const done = await transfer();
    const operationID = String(done.body.operationID);
    const set = await setFaults(user.connectionID, [
      {
        path: READ,
        outcome: 'refusal',
        status: 429,
        type: 'TOO_MANY_REQUESTS',
        retryAfterSeconds: 3,
        namesOperation: true,
        times: 1,
      },
    ]);

    // act
    const refused = await rawCall(user, READ, { operationID });
    const next = await user.call(READ, { operationID });

    // assess
    expect(set.status).toBe(200);
    expect(set.body.faults).toEqual([expect.objectContaining({ namesOperation: true })]);
    expect(refused).toEqual({
      status: 429,
      retryAfter: '3',
      body: expect.objectContaining({ operationID, ...failedFields('TOO_MANY_REQUESTS') }),
    });
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ operationID, success: true, status: 'done' });
  });

  it('on a transfer: a new operation, failed, nothing debited, and reading it answers the same refusal', async () => {
    // prepare
    const { user, transfer } = await givenTransferringUser();
    const before = await stateOf(user);
    await setFaults(user.connectionID, [
      {
        path: TRANSFER,
        outcome: 'refusal',
        status: 422,
        type: 'INSUFFICIENT_BALANCE',
        namesOperation: true,
        times: 1,
      },
    ]);

    // act
    const refused = await transfer();
    const operationID = String(refused.body.operationID);
    const readBack = await user.call(READ, { operationID });
    const after = await stateOf(user);

    // assess
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual(failedOperation('INSUFFICIENT_BALANCE', 'operationID'));
    expect(operationID).toMatch(/^op_/);
    expect(readBack.status).toBe(200);
    expect(readBack.body).toMatchObject({ operationID, ...failedFields('INSUFFICIENT_BALANCE') });
    expect(after.balance).toBe(before.balance);
    expect(after.transfers).toEqual([]);
  });

  it('by headers on a beneficiary creation: a new job, failed, with Retry-After', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const refused = await rawCall(
      user,
      '/v1/payment/beneficiaries/create',
      { sync: true, ...walletBeneficiary() },
      {
        'x-sandbox-fault': 'refusal',
        'x-sandbox-fault-status': '429',
        'x-sandbox-fault-type': 'TOO_MANY_REQUESTS',
        'x-sandbox-retry-after-seconds': '5',
        'x-sandbox-names-operation': 'true',
      },
    );
    const jobID = String(refused.body.jobID);
    const readBack = await user.call(READ, { jobID });
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });

    // assess
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('5');
    expect(refused.body).toMatchObject({
      jobID: expect.stringMatching(/^job_/),
      ...failedFields('TOO_MANY_REQUESTS'),
    });
    expect(readBack.body).toMatchObject({ jobID, ...failedFields('TOO_MANY_REQUESTS') });
    expect(listed.body.beneficiaries).toEqual([]);
  });

  it('refuses nonsense as BAD_REQUEST, setting or running nothing', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const refusal = { outcome: 'refusal', status: 429, type: 'TOO_MANY_REQUESTS', namesOperation: true };

    // act
    const onError = await setFaults(user.connectionID, [
      { path: TRANSFER, outcome: 'error', status: 503, namesOperation: true },
    ]);
    const withoutPath = await setFaults(user.connectionID, [refusal]);
    const onMetadata = await setFaults(user.connectionID, [{ ...refusal, path: METADATA }]);
    const notBoolean = await setFaults(user.connectionID, [
      { ...refusal, path: TRANSFER, namesOperation: 'yes' },
    ]);
    const byHeader = await user.call(
      METADATA,
      { sync: true },
      {
        'x-sandbox-fault': 'refusal',
        'x-sandbox-fault-status': '429',
        'x-sandbox-fault-type': 'TOO_MANY_REQUESTS',
        'x-sandbox-names-operation': 'true',
      },
    );
    const unaffected = await user.call(METADATA, { sync: true });

    // assess
    for (const reply of [onError, withoutPath, onMetadata, notBoolean, byHeader]) {
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(failed('BAD_REQUEST'));
    }
    expect(unaffected.status).toBe(200);
  });
});

/** The fields of a failed envelope of this type. */
function failedFields(type: string) {
  return { success: false, status: 'failed', type, msg: expect.any(String) };
}
