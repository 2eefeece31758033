/**
 * Fault handling over the in-memory store and a manual clock, on a provider operation: an outcome
 * `before` the bank sees the request (nothing stored) and `after` it took effect (stored, the
 * answer lost), timeouts, latency spent inside the operation, per-user rules (counted, per path)
 * and the header that wins over them. Refusals, pending reads and the public routes: the
 * `sandbox-faults-*` files beside this one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { logger } from '#shared/logger';
import { faultWaitBudgetMs } from '#shared/provider/interface/limits';
import { getMetadata } from '#shared/sandbox/operations/metadata';
import { testAppSecret, testSandboxOptions } from '../support/given-sandbox.ts';
import { failed, givenTransferringUser, METADATA, TRANSFER } from '../support/sandbox-faults.ts';

// Every injected fault logs a warning: kept out of the test output.
beforeAll(() => logger.setLogLevel('ERROR'));

describe('a fault on a provider operation', () => {
  it('before the bank sees it: answers the error, and nothing is stored', async () => {
    // prepare
    const { transfer, state, store, user } = await givenTransferringUser();
    const before = await state();

    // act
    const reply = await transfer({ 'x-sandbox-fault': 'error', 'x-sandbox-fault-status': '503' });
    const after = await state();

    // assess
    expect(reply).toEqual({ status: 503, body: failed('SERVICE_UNAVAILABLE') });
    expect(after).toEqual(before);
    expect((await store.getConnection(user.connectionId))?.lockOperationId).toBeUndefined();
  });

  it('after the operation took effect: answers the error, yet the transfer and its operation are stored', async () => {
    // prepare
    const { transfer, state } = await givenTransferringUser();
    const before = await state();

    // act
    const reply = await transfer({
      'x-sandbox-fault': 'error',
      'x-sandbox-fault-status': '503',
      'x-sandbox-fault-phase': 'after',
    });
    const after = await state();

    // assess
    expect(reply).toEqual({ status: 503, body: failed('SERVICE_UNAVAILABLE') });
    expect(after.balanceMinor).toBe((before.balanceMinor ?? 0) - 4_000);
    expect(after.transfers).toHaveLength(1);
    expect(after.operations.slice(before.operations.length)).toEqual([
      expect.objectContaining({
        kind: 'transfer.create',
        response: expect.objectContaining({ status: 'done', reference: after.transfers[0]?.reference }),
      }),
    ]);
  });

  it('times out before the bank: hangs for the given time on the clock, answers 504, stores nothing', async () => {
    // prepare
    const { transfer, state, clock } = await givenTransferringUser();
    const before = await state();
    const startedAt = clock.now();

    // act
    const reply = await transfer({ 'x-sandbox-fault': 'timeout', 'x-sandbox-timeout-ms': '300' });

    // assess
    expect(reply).toEqual({ status: 504, body: failed('GATEWAY_TIMEOUT') });
    expect(clock.now() - startedAt).toBe(300);
    expect(await state()).toEqual(before);
  });

  it('times out after the transfer took effect, for the default time when none is given', async () => {
    // prepare
    const { transfer, state, clock } = await givenTransferringUser();
    const startedAt = clock.now();

    // act
    const reply = await transfer({ 'x-sandbox-fault': 'timeout', 'x-sandbox-fault-phase': 'after' });

    // assess
    expect(reply).toEqual({ status: 504, body: failed('GATEWAY_TIMEOUT') });
    expect(clock.now() - startedAt).toBe(testSandboxOptions.timeoutFaultMs);
    expect((await state()).transfers).toHaveLength(1);
  });

  it('shortens the default hang after a latency, so the whole wait stays inside the fault budget', async () => {
    // prepare
    const { transfer, clock } = await givenTransferringUser();
    const startedAt = clock.now();

    // act
    const reply = await transfer({
      'x-sandbox-fault': 'timeout',
      'x-sandbox-fault-phase': 'after',
      'x-sandbox-latency-ms': '20000',
    });

    // assess
    expect(reply).toEqual({ status: 504, body: failed('GATEWAY_TIMEOUT') });
    expect(clock.now() - startedAt).toBe(faultWaitBudgetMs);
  });

  it.each([
    [{ 'x-sandbox-latency-ms': String(faultWaitBudgetMs + 1) }],
    [{ 'x-sandbox-fault': 'timeout', 'x-sandbox-timeout-ms': String(faultWaitBudgetMs + 1) }],
    [{ 'x-sandbox-fault': 'timeout', 'x-sandbox-latency-ms': '20000', 'x-sandbox-timeout-ms': '5001' }],
  ])('refuses waits over the fault budget (BAD_REQUEST), running nothing: %o', async (headers) => {
    // prepare
    const { transfer, state, clock } = await givenTransferringUser();
    const before = await state();
    const startedAt = clock.now();

    // act
    const reply = await transfer(headers);

    // assess
    expect(reply).toEqual({ status: 400, body: failed('BAD_REQUEST') });
    expect(clock.now()).toBe(startedAt);
    expect(await state()).toEqual(before);
  });

  it("spends a rule's latency inside the operation: the bank sees the request that much later", async () => {
    // prepare
    const { sandbox, transfer, state, clock, user } = await givenTransferringUser();
    await sandbox.administration.setFaults({
      appSecret: testAppSecret,
      connectionID: user.connectionId,
      faults: [{ latencyMs: 600 }],
    });
    const startedAt = clock.now();

    // act
    const reply = await transfer();
    const { transfers, operations } = await state();

    // assess
    expect(reply.body).toMatchObject({ success: true, status: 'done' });
    expect(transfers[0]?.createdAt).toBe(startedAt + 600);
    expect(operations.at(-1)?.createdAt).toBe(startedAt + 600);
  });

  it('uses a counted rule once, only on its path', async () => {
    // prepare
    const { sandbox, transfer, state, user } = await givenTransferringUser();
    await sandbox.administration.setFaults({
      appSecret: testAppSecret,
      connectionID: user.connectionId,
      faults: [{ path: TRANSFER, outcome: 'error', status: 500, times: 1 }],
    });

    // act
    const metadata = await user.call(getMetadata, { sync: true }, { path: METADATA });
    const first = await transfer();
    const afterFirst = await state();
    const second = await transfer();

    // assess
    expect(metadata.body).toMatchObject({ success: true, status: 'done' });
    expect(first).toEqual({ status: 500, body: failed('INTERNAL_ERROR') });
    expect(afterFirst.transfers).toEqual([]);
    expect(second.body).toMatchObject({ success: true, status: 'done' });
    expect((await state()).transfers).toHaveLength(1);
  });

  it('lets a header fault win over the rules, without using up a counted rule', async () => {
    // prepare
    const { sandbox, user } = await givenTransferringUser();
    await sandbox.administration.setFaults({
      appSecret: testAppSecret,
      connectionID: user.connectionId,
      faults: [{ outcome: 'error', status: 503, times: 1 }],
    });
    const metadata = (headers: Record<string, string> = {}) =>
      user.call(getMetadata, { sync: true }, { path: METADATA, headers });

    // act
    const byHeader = await metadata({ 'x-sandbox-fault': 'error', 'x-sandbox-fault-status': '502' });
    const byRule = await metadata();
    const healthy = await metadata();

    // assess
    expect(byHeader).toEqual({ status: 502, body: failed('BAD_GATEWAY') });
    expect(byRule).toEqual({ status: 503, body: failed('SERVICE_UNAVAILABLE') });
    expect(healthy.status).toBe(200);
  });

  it('refuses a fault header it does not understand (BAD_REQUEST), running nothing', async () => {
    // prepare
    const { transfer, state } = await givenTransferringUser();
    const before = await state();

    // act
    const reply = await transfer({ 'x-sandbox-fault': 'error', 'x-sandbox-fault-status': '418' });

    // assess
    expect(reply).toEqual({ status: 400, body: failed('BAD_REQUEST') });
    expect(await state()).toEqual(before);
  });
});
