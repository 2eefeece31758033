/**
 * Fault controls: the per-request `X-Sandbox-*` headers on provider operations. Latency, errors and
 * timeouts `before` the bank sees a request (nothing happens) and `after` it took effect (the
 * unknown-outcome case), a client that gives up. Per-user rules, public routes and refusals that
 * name their operation: the `sandbox-fault-rules-*` files beside this one. In process: the
 * sandbox's routes composed as their handlers are, over its in-memory fake store (the sanctioned
 * stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import { createUser, failed, request, stateOf } from '../support/in-process-sandbox.ts';
import { givenTransferringUser, METADATA, timed } from '../support/sandbox-fault-rules.ts';

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
