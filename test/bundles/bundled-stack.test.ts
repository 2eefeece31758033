/**
 * The bundles run as deployed: against a local stack whose every function is the
 * bundle `cdk synth` builds, in a process of its own with the environment its template gives it (this
 * project's global setup: `startLocalStack({ handlers: 'bundles' })`), over real HTTP: a deposit whose
 * bank asks one-time passwords, answered through the deposits API, and its signed webhook at the
 * receiver; a payment source to ready; an operator's resolve of a transfer whose outcome is unknown.
 * Then that each function that served them was a bundle's process (`host.mjs` with its `index.mjs`).
 * An invocation a bundle cannot handle fails the stack's call (test/infra/bundle-failures.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxApi } from '#shared/topology';
import {
  depositsUrl,
  depositWhen,
  otpAnswer,
  sourceWhen,
  startDeposit,
  startSource,
  webhookDeliveries,
} from '../support/deposits.ts';
import { ops } from '../support/operator.ts';
import { createUser, eventually, sandboxUrl, setFaults } from '../support/sandbox.ts';

const asking = (deposit: Record<string, unknown>) => deposit.status === 'user_input_required';

/** POST /v1/deposits/answer as the stack's backend: the deposit's id and the answers. */
async function answer(operationID: string, deposit: Record<string, unknown>) {
  const response = await fetch(`${depositsUrl}/v1/deposits/answer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      operationID,
      userInputs: otpAnswer(deposit).map(({ id, answer }) => ({ id, answer })),
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The caller's delivery of this deposit's event of this type, once it has come. */
function delivered(id: string, type: string, data: Record<string, unknown> = {}) {
  return eventually(async () => {
    const { deliveries } = await webhookDeliveries(id);
    return deliveries.find(
      (delivery) =>
        delivery.type === type && Object.entries(data).every(([key, value]) => delivery.data[key] === value),
    );
  }, 20_000);
}

/** The handlers whose bundle runs in a process of the stack now (`host.mjs <asset>/index.mjs`). */
function bundlesRunning(): Set<string> {
  const lines = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n');
  const files = lines.flatMap((line) => /bundles\/host\.mjs (\S+index\.mjs)/.exec(line)?.[1] ?? []);
  const running = new Set<string>();
  for (const file of files) {
    const list = join(dirname(dirname(file)), 'functions.json');
    if (!existsSync(list)) continue;
    const functions = JSON.parse(readFileSync(list, 'utf8')) as { handler: string; file: string }[];
    const fn = functions.find((one) => join(dirname(list), one.file) === file);
    if (fn) running.add(fn.handler);
  }
  return running;
}

// Each sandbox route once (any answer): its function's process started, as a provider's would be, so
// that no cold start of the provider counts against the 1 s the tests' stacks give a provider call.
beforeAll(async () => {
  await Promise.all(
    sandboxApi.routes.map((route) =>
      fetch(`${sandboxUrl}${route.path}`, {
        method: route.method,
        ...(route.method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
      }).then((response) => response.arrayBuffer()),
    ),
  );
}, 120_000);

describe.concurrent('a local stack of bundles', () => {
  it('carries a deposit through two questions, answered through the deposits API, to done, and its signed webhook arrives', async () => {
    const user = await createUser('SANDBOX_OTP');
    const started = await startDeposit(user, { amount: 42 });
    const id = String(started.body.operationID);

    const ended = (d: Record<string, unknown>) => d.status === 'failed' || d.status === 'done';
    const first = await depositWhen(user, id, (d) => asking(d) || ended(d), 45_000);
    expect(first).toMatchObject({ status: 'user_input_required', step: 'ensure-beneficiary' });
    const answeredFirst = await answer(id, first);
    const second = await depositWhen(
      user,
      id,
      (d) => (asking(d) && d.step === 'transfer') || ended(d),
      45_000,
    );
    expect(second).toMatchObject({ status: 'user_input_required', step: 'transfer' });
    const answeredSecond = await answer(id, second);
    const done = await depositWhen(user, id, undefined, 30_000);
    const event = await delivered(id, 'deposit.done');

    expect(started.status).toBe(202);
    expect(answeredFirst).toMatchObject({ status: 200, body: { operationID: id, status: 'initialized' } });
    expect(answeredSecond).toMatchObject({ status: 200, body: { operationID: id, status: 'initialized' } });
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    expect(event).toMatchObject({ verified: true, data: { status: 'done' } });
    expect((await user.state()).transfers.map((transfer: { amount: number }) => transfer.amount)).toEqual([
      42,
    ]);
  });

  it('prepares a payment source to ready', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY', { asyncDelaySeconds: 0 });
    const started = await startSource(user, {}, `source-${user.connectionID}`);
    const ready = await sourceWhen(user, String(started.body.sourceID), undefined, 30_000);

    expect(started.status).toBe(202);
    expect(ready).toMatchObject({ status: 'ready' });
  });

  it('lets an operator resolve a transfer whose outcome is unknown, and the caller hears it', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const timeout = { path: '/v1/payment/transfer/create', times: 1, outcome: 'timeout', timeoutMs: 2_500 };
    await setFaults(user, [{ ...timeout, phase: 'after' }]);
    const started = await startDeposit(user, { amount: 21 });
    const id = String(started.body.operationID);
    const failed = await depositWhen(user, id, undefined, 30_000);
    const [transfer] = (await user.state()).transfers as { reference: string }[];

    const resolved = await ops('/v1/ops/deposits/resolve', {
      operationID: id,
      outcome: 'done',
      reference: transfer?.reference,
      reason: 'The bank statement shows it',
    });
    const event = await delivered(id, 'deposit.done', { resolved: true });

    expect(failed).toMatchObject({ status: 'failed', type: 'TRANSFER_OUTCOME_UNKNOWN' });
    expect(resolved).toMatchObject({
      status: 200,
      body: { status: 'done', resolution: { outcome: 'done', by: 'local-operator' } },
    });
    expect(event.verified).toBe(true);
  });
});

describe('what served them', () => {
  it('is each function’s bundle, in a process of its own', () => {
    const running = bundlesRunning();
    for (const handler of [
      'functions/sandbox/users-create.ts',
      'functions/sandbox/transfer-create.ts',
      'functions/deposits/create.ts',
      'functions/deposits/answer.ts',
      'functions/sources/create.ts',
      'functions/steps/resolve-bank.ts',
      'functions/steps/ensure-beneficiary.ts',
      'functions/steps/transfer.ts',
      'functions/notifier/outbox.ts',
      'functions/notifier/deliver.ts',
      'functions/operator/resolve.ts',
    ])
      expect(running, handler).toContain(handler);
  });
});
