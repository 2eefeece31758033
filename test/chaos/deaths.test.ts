/**
 * Step workers killed for real: a local stack of this file's own whose step queues' pollers run in a
 * child process (`stepWorkers: 'child-process'`), killed with SIGKILL at armed crash points (no catch,
 * no finally, the batch in hand neither finished nor deleted) and replaced. Each death is proven to
 * have happened (the stack counts the SIGKILLs, the crash report names the point), and the deposit
 * still keeps the promise: done with one transfer, or, killed between its transfer's record and its
 * outcome, an unknown outcome that the report names as that death's evidence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Death } from '#infra/local/crash-points';
import { type LocalStack, startLocalStack } from '#infra/local/stack';
import { DepositsClient } from '#shared/deposits-api/client';
import { eventually } from '../support/eventually.ts';
import { TEST_SWEEP_INTERVAL_MS, testEnv, testOwnerDigests } from '../support/local-stack.ts';
import { appSecret, createUser, post, transfersOf, type User } from '../support/own-stack.ts';
import { sharedDynamoDb } from '../support/shared-dynamodb.ts';

let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack({
    ...sharedDynamoDb(),
    sandboxPort: 0,
    depositsPort: 0,
    operatorPort: 0,
    visibilityTimeoutSeconds: 2,
    sweepIntervalMs: TEST_SWEEP_INTERVAL_MS,
    stepWorkers: 'child-process',
    env: testEnv,
  });
});

afterAll(async () => {
  await stack?.stop();
});

async function arm(user: User, point: string, step: string) {
  const armed = await post(`${stack.depositsUrl}/_local/crash`, {
    accessToken: user.accessToken,
    point,
    step,
  });
  expect(armed.status).toBe(200);
}

async function crashReport() {
  const response = await fetch(`${stack.depositsUrl}/_local/crash`);
  return (await response.json()) as { fired: Record<string, number>; armed: number; deaths: Death[] };
}

async function depositToEnd(user: User, amount: number) {
  const client = new DepositsClient({ baseUrl: stack.depositsUrl, retries: 0, timeoutMs: 30_000 });
  const connection = { accessToken: user.accessToken, userSecret: user.userSecret, appSecret };
  const created = await client.create(connection, { amount, senderID: user.accountId });
  expect(created.status).toBe(202);
  const id = created.body.operationID as string;
  return eventually(async () => {
    const deposit = (await client.get(connection, id)).body;
    return deposit.status === 'done' || deposit.status === 'failed' ? deposit : undefined;
  }, 60_000);
}

describe('step workers killed with SIGKILL at crash points', () => {
  // Side by side, each with a user of its own: the deaths each names are that user's.
  describe.concurrent('at armed points', () => {
    it('a death after each kind of write: the process is killed and replaced, the deposit ends done with one transfer', async () => {
      const points = [
        ['after-queue-send', 'ensure-beneficiary'],
        ['after-claim-write', 'ensure-beneficiary'],
        ['after-lease-write', 'ensure-beneficiary'],
        ['before-state-write', 'transfer'],
      ] as const;
      const user = await createUser(stack, 'SANDBOX_BENEFICIARY');
      for (const [point, step] of points) await arm(user, point, step);
      const killedBefore = stack.stepWorkerKills()?.planned ?? 0;

      const deposit = await depositToEnd(user, 25);

      // Its failure and its way there, should it not be done: what the next person reads first.
      expect(deposit.status, JSON.stringify(deposit)).toBe('done');
      expect(await transfersOf(stack, user)).toHaveLength(1);
      const report = await crashReport();
      const deaths = report.deaths.filter(
        (death) => death.ownerKey === testOwnerDigests.of(user.accessToken),
      );
      expect(deaths.map((death) => [death.point, death.step])).toEqual(points.map(([p, s]) => [p, s]));
      expect(deaths.every((death) => death.how === 'killed')).toBe(true);
      // The stack counted each kill (the test beside this one's as well).
      expect((stack.stepWorkerKills()?.planned ?? 0) - killedBefore).toBeGreaterThanOrEqual(points.length);
    });

    it('killed between the transfer attempt’s record and its outcome: an unknown outcome, with that death as its evidence', async () => {
      const user = await createUser(stack, 'SANDBOX_BENEFICIARY');
      await arm(user, 'after-provider-call', 'transfer');

      const deposit = await depositToEnd(user, 30);

      expect(deposit.status).toBe('failed');
      expect(deposit.status === 'failed' && deposit.type).toBe('TRANSFER_OUTCOME_UNKNOWN');
      // The transfer left before the death: the bank has it, once.
      expect(await transfersOf(stack, user)).toHaveLength(1);
      const death = (await crashReport()).deaths.find(
        (one) => one.ownerKey === testOwnerDigests.of(user.accessToken),
      );
      expect(death).toMatchObject({ point: 'after-provider-call', step: 'transfer', how: 'killed' });
      expect(death?.attemptsOpen).toContain(deposit.operationID);
    });
  });

  it('every armed point fired', async () => {
    expect((await crashReport()).armed).toBe(0);
  });

  it('a restart kills the workers at whatever they do; the next ones take the work on', async () => {
    const user = await createUser(stack, 'SANDBOX_BENEFICIARY');
    const before = stack.stepWorkerKills()?.unplanned ?? 0;
    const ended = depositToEnd(user, 40);
    await stack.restartWorkers({ pauseMs: 500 });

    expect((await ended).status).toBe('done');
    // Both processes of step workers, killed.
    expect(stack.stepWorkerKills()?.unplanned).toBe(before + 2);
  });
});
