/**
 * Fault controls: per-user rules set through `POST /sandbox/faults`, and the fault headers on
 * public routes. In process: the sandbox's routes composed as their handlers are, over its
 * in-memory fake store (the sanctioned stand-in for its table) and a manual clock
 * (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import {
  appSecret,
  createUser,
  failed,
  faultsOf,
  post,
  request,
  stateOf,
} from '../support/in-process-sandbox.ts';
import {
  givenTransferringUser,
  METADATA,
  setFaults,
  TRANSFER,
  timed,
} from '../support/sandbox-fault-rules.ts';

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
