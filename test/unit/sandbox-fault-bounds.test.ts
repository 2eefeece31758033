/**
 * Injected latency and timeouts are bounded by what the deployed sandbox function can wait
 * (`faultWaitBudgetMs`, inside its timeout in infra/cdk): a rule or header asking more is refused with
 * BAD_REQUEST naming the field, so a fault never becomes the API gateway's own (non-envelope) answer.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import { faultWaitBudgetMs } from '#shared/provider/interface/limits';
import { appSecret, clock, createUser, post, request } from '../support/in-process-sandbox.ts';

const badRequestNaming = (field: string) =>
  expect.objectContaining({
    success: false,
    status: 'failed',
    type: 'BAD_REQUEST',
    details: expect.arrayContaining([expect.stringContaining(field)]),
  });

describe('POST /sandbox/faults: rules inside the budget', () => {
  it.each([
    ['latency over the budget', [{ latencyMs: faultWaitBudgetMs + 1 }], 'faults.0.latencyMs'],
    [
      'a hang over the budget',
      [{ outcome: 'timeout', timeoutMs: faultWaitBudgetMs + 1 }],
      'faults.0.timeoutMs',
    ],
    [
      'latency and hang together over it',
      [{ outcome: 'timeout', latencyMs: 20_000, timeoutMs: faultWaitBudgetMs - 20_000 + 1 }],
      'faults.0.latencyMs',
    ],
  ])('%s: BAD_REQUEST naming the field, no rule set', async (_name, faults, field) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const reply = await post('/sandbox/faults', { appSecret, connectionID: user.connectionID, faults });
    const metadata = await user.call('/v1/metadata/accounts/get', { sync: true });

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(badRequestNaming(field));
    expect(metadata.body).toMatchObject({ success: true, status: 'done' });
  });

  it('latency and hang exactly at the budget are accepted', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const faults = [
      { outcome: 'timeout', latencyMs: 20_000, timeoutMs: faultWaitBudgetMs - 20_000, path: '/x' },
    ];

    // act
    const reply = await post('/sandbox/faults', { appSecret, connectionID: user.connectionID, faults });

    // assess
    expect(reply.status).toBe(200);
    expect(reply.body.faults).toEqual(faults);
  });
});

describe('X-Sandbox-* headers: the same budget, on provider and public routes', () => {
  it.each([
    [{ 'x-sandbox-latency-ms': String(faultWaitBudgetMs + 1) }, 'latencyMs'],
    [{ 'x-sandbox-fault': 'timeout', 'x-sandbox-timeout-ms': String(faultWaitBudgetMs + 1) }, 'timeoutMs'],
    [
      { 'x-sandbox-fault': 'timeout', 'x-sandbox-latency-ms': '20000', 'x-sandbox-timeout-ms': '5001' },
      'latencyMs',
    ],
  ])('%o: BAD_REQUEST at once', async (headers, field) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const startedAt = clock.now();

    // act
    const provider = await user.call('/v1/metadata/accounts/get', { sync: true }, headers);
    const publicRoute = await request('GET', '/sandbox/banks', undefined, headers);

    // assess
    expect(provider.status).toBe(400);
    expect(provider.body).toEqual(badRequestNaming(`X-Sandbox header ${field}`));
    expect(publicRoute.status).toBe(400);
    expect(publicRoute.body).toEqual(badRequestNaming(`X-Sandbox header ${field}`));
    expect(clock.now() - startedAt).toBeLessThan(5_000);
  });
});
