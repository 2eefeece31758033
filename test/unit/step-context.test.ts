/**
 * Each step's wiring builds exactly the ports its line in `reach.ts` names (the type `StepContext`
 * follows the same line at compile time; this checks what the types cannot see at run time). The
 * adapters are only constructed here: no call leaves the process.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { localWallets } from '#infra/local/wallets';
import { stepQueueVariables } from '#shared/config';
import { type Reach, reach } from '#shared/deposits/reach';
import type { StepName } from '#shared/deposits/step-context';

const steps: StepName[] = ['resolve-bank', 'ensure-beneficiary', 'wait-cooldown', 'transfer', 'reconcile'];

/** The ports a line names, by the names the contexts give them. */
function portsOf(line: Reach): string[] {
  const ports = ['deposits', 'clock', 'settings', 'observer', 'queues'];
  if (line.wakes.length) ports.push('scheduler');
  if (line.leases) ports.push('leases');
  if (line.claims?.length) ports.push('claims');
  if (line.banks?.length) ports.push('banks');
  if (line.sharedWakes?.length) ports.push('sharedWakes');
  if (line.sharedWakes?.includes('take')) ports.push('followers');
  if (line.credentials === 'open') ports.push('vault');
  if (line.provider?.length) ports.push('provider');
  if (line.wallets) ports.push('wallets');
  return ports.sort();
}

beforeAll(() => {
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    DEPOSITS_TABLE_NAME: 'deposits',
    SCHEDULE_GROUP_NAME: 'deposits',
    SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/scheduler',
    LOCAL_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WALLET_ACCOUNTS: JSON.stringify(localWallets),
    DEFAULT_WALLET_ACCOUNT_ID: 'wallet-aed',
    ...Object.fromEntries(
      Object.values(stepQueueVariables).flatMap(({ url, arn }) => [
        [url, `http://127.0.0.1:1/queue/${url}`],
        [arn, `arn:aws:sqs:us-east-1:000000000000:${arn}`],
      ]),
    ),
  });
});

describe("a step's context, from its line", () => {
  it.for(steps)('%s: exactly the ports its line names', async (step) => {
    const { stepContext } = await import('#shared/wiring/step-context');

    const context = stepContext(step);

    expect(Object.keys(context).sort()).toEqual(portsOf(reach[step]));
  });

  it('a step that may fail a payment source hands its followers on through its own queues', async () => {
    const { stepContext } = await import('#shared/wiring/step-context');

    const context = stepContext('transfer');

    expect(context.followers.queues).toBe(context.queues);
    expect(context.followers.sharedWakes).toBe(context.sharedWakes);
  });
});
