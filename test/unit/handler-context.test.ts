/**
 * Each handler's wiring builds exactly the ports its line in `reach.ts` names, and so do the unit
 * tests' fakes (the type `HandlerContext` follows the same line at compile time; this checks what the
 * types cannot see at run time). The adapters are only constructed here: no call leaves the process.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { localWallets } from '#infra/local/wallets';
import { stepQueueVariables } from '#shared/config';
import { leaseSteps, type Reach, type ReachName, reach } from '#shared/deposits/reach';
import { outbox, queues, watchedQueues, watchedQueuesVariable } from '#shared/topology';
import { world } from '../support/deposit-world.ts';

const names = Object.keys(reach) as ReachName[];

/** The ports a line names, by the names the contexts give them. */
function portsOf(line: Reach): string[] {
  const ports = new Set(['clock']);
  const add = (when: unknown, ...named: string[]) => {
    if (when) for (const name of named) ports.add(name);
  };
  add(line.deposits, 'deposits');
  add(line.deposits === 'write', 'settings', 'observer');
  add(line.idempotency, 'idempotency', 'trace');
  add(line.sends.length, 'queues');
  add(line.wakes.length, 'scheduler');
  add(line.unschedules, 'schedules');
  add(line.leases, 'leases', 'leaseWaiters');
  add(line.claims?.length, 'claims');
  add(line.banks?.length, 'banks');
  add(line.sharedWakes?.length, 'sharedWakes');
  add(line.sharedWakes?.includes('take'), 'followers');
  add(line.credentials, 'vault');
  add(line.provider?.length, 'provider');
  add(line.wallets, 'wallets');
  add(line.ownerKeys, 'ownerDigests');
  add(line.dueIndex, 'due', 'settings');
  add(line.ownerIndex, 'owners');
  add(line.backendIndex, 'backends');
  add(line.statusIndex, 'byStatus', 'times');
  add(line.queueDepths, 'depths');
  add(line.approvals, 'approvalAbove');
  add(line.deliveries, 'deliveries');
  add(line.deliveries === 'resend' || line.relays, 'events');
  add(line.relays === 'stream', 'unrelayed');
  return [...ports].sort();
}

let handlerContext: typeof import('#shared/wiring/handler-context').handlerContext;

beforeAll(async () => {
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    DEPOSITS_TABLE_NAME: 'deposits',
    SCHEDULE_GROUP_NAME: 'deposits',
    SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/scheduler',
    LOCAL_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    OWNER_KEY: randomBytes(32).toString('base64'),
    WALLET_ACCOUNTS: JSON.stringify(localWallets),
    DEFAULT_WALLET_ACCOUNT_ID: 'wallet-aed',
    [queues.notify.urlEnvVar]: 'http://127.0.0.1:1/queue/notify',
    [outbox.dlqUrlEnvVar]: 'http://127.0.0.1:1/queue/outbox-relay-dlq',
    [watchedQueuesVariable]: JSON.stringify(
      watchedQueues((key) => ({
        url: `http://127.0.0.1:1/queue/${key}`,
        dlqUrl: `http://127.0.0.1:1/queue/${key}-dlq`,
      })),
    ),
    ...Object.fromEntries(
      Object.values(stepQueueVariables).flatMap(({ url, arn }) => [
        [url, `http://127.0.0.1:1/queue/${url}`],
        [arn, `arn:aws:sqs:us-east-1:000000000000:${arn}`],
      ]),
    ),
  });
  // The wiring reads its configuration as it builds: imported once the environment is set.
  ({ handlerContext } = await import('#shared/wiring/handler-context'));
}, 60_000);

describe("a handler's context, from its line", () => {
  it.for(names)('%s: exactly the ports its line names', async (name) => {
    const context = await handlerContext(name);

    expect(Object.keys(context).sort()).toEqual(portsOf(reach[name]));
  });

  it.for(names)('%s: its fake context too', (name) => {
    const context = world().context(name);

    // The fakes have no trace to keep.
    expect(Object.keys(context).sort()).toEqual(portsOf(reach[name]).filter((port) => port !== 'trace'));
  });

  it('a handler that may fail a payment source hands its followers on through its own queues', async () => {
    const context = await handlerContext('steps-transfer');

    expect(context.followers.queues).toBe(context.queues);
    expect(context.followers.sharedWakes).toBe(context.sharedWakes);
  });

  it('a handler that frees a lease wakes its waiter through its own queues, which reach every step that waits for one', async () => {
    const context = await handlerContext('steps-reconcile');
    const withLeases = names.filter((name) => (reach[name] as Reach).leases);
    const missing = withLeases.flatMap((name) =>
      leaseSteps
        .filter((step) => !(reach[name].sends as readonly string[]).includes(step))
        .map((step) => `${name} -> ${step}`),
    );

    expect(context.leaseWaiters).toBe(context.queues);
    expect(withLeases.length).toBeGreaterThan(5);
    expect(missing).toEqual([]);
  });
});
