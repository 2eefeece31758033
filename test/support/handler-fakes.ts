/**
 * A handler's context over the fakes, built from its line in `shared/deposits/reach.ts` as the
 * wiring builds the real one (`shared/wiring/handler-context.ts`): exactly the ports the line names,
 * its queues and schedules only to the steps it may reach. The fakes that record what crossed them
 * keep their own types here, so a test assesses what the handler sent, scheduled or cancelled.
 */

import type { Clock } from '#shared/clock';
import type { UnrelayedEvents, UnrelayedRecord } from '#shared/deposits/background/outbox';
import type { WorkStep } from '#shared/deposits/model/deposit';
import type { Wallets } from '#shared/deposits/model/wallets';
import type { OwnerDigests } from '#shared/deposits/ports/provider';
import type { DepositSettings } from '#shared/deposits/ports/settings';
import { type Reach, type ReachName, reach, type SendsOf, type WakesOf } from '#shared/deposits/reach';
import type { ApprovalThresholds } from '#shared/operator/approval';
import type { HandlerContext } from '#shared/wiring/handler-context';
import {
  type FakeDepositsTable,
  FakeEventQueue,
  type FakeProvider,
  FakeQueues,
  FakeScheduler,
  type FakeVault,
  FakeWakeCancels,
  type RecordingObserver,
} from './deposit-fakes.ts';
import {
  type FakeDeliveryRecords,
  type FixedQueueDepths,
  fakeStatusIndex,
  fakeStatusTimes,
} from './operator-fakes.ts';

/** The fakes a world shares among its handlers' contexts. */
export interface Fakes {
  table: FakeDepositsTable;
  clock: Clock;
  settings: DepositSettings;
  observer: RecordingObserver;
  provider: FakeProvider;
  vault: FakeVault;
  wallets: Wallets;
  ownerDigests: OwnerDigests;
  deliveries: FakeDeliveryRecords;
  depths: FixedQueueDepths;
  approvalAbove: ApprovalThresholds;
}

/** The recording fakes' own types, where the line gives the handler such a port. */
export type FakePorts<H extends ReachName> = ([SendsOf<H>] extends [never]
  ? unknown
  : { queues: FakeQueues<SendsOf<H>> }) &
  ([WakesOf<H>] extends [never] ? unknown : { scheduler: FakeScheduler<WakesOf<H>> }) &
  ((typeof reach)[H] extends { unschedules: true } ? { schedules: FakeWakeCancels } : unknown) &
  ((typeof reach)[H] extends { leases: true } ? { leaseWaiters: FakeQueues<SendsOf<H>> } : unknown) &
  ((typeof reach)[H] extends { relays: string } ? { events: FakeEventQueue } : unknown) &
  ((typeof reach)[H] extends { relays: 'stream' } ? { unrelayed: SetAside } : unknown) &
  ((typeof reach)[H] extends { sharedWakes: readonly (infer U)[] }
    ? 'take' extends U
      ? { followers: { queues: FakeQueues<SendsOf<H>> } }
      : unknown
    : unknown);

/** The relay's DLQ: what it set aside, in order. */
export class SetAside implements UnrelayedEvents {
  readonly records: UnrelayedRecord[] = [];

  async setAside(record: UnrelayedRecord): Promise<void> {
    this.records.push(structuredClone(record));
  }
}

export type FakeContext<H extends ReachName> = HandlerContext<H> & FakePorts<H>;

export interface FakeOptions {
  /** The scheduler whose schedules a cancel deletes (a step's, that armed them). */
  armed?: FakeScheduler<WorkStep> | undefined;
}

/** Handler `name`'s context over `fakes`: each port its line names, and no other. */
export function fakeContext<H extends ReachName>(
  fakes: Fakes,
  name: H,
  options: FakeOptions = {},
): FakeContext<H> {
  const line: Reach = reach[name];
  const { table } = fakes;
  const queues = line.sends.length ? new FakeQueues(line.sends) : undefined;
  const sharedWakes = line.sharedWakes?.length ? table.sharedWakes : undefined;
  const context = {
    clock: fakes.clock,
    ...(line.deposits ? { deposits: table.deposits } : {}),
    ...(line.deposits === 'write' || line.dueIndex ? { settings: fakes.settings } : {}),
    ...(line.deposits === 'write' ? { observer: fakes.observer } : {}),
    ...(line.idempotency ? { idempotency: table.idempotency } : {}),
    ...(queues ? { queues } : {}),
    ...(line.wakes.length ? { scheduler: new FakeScheduler(line.wakes) } : {}),
    ...(line.unschedules ? { schedules: new FakeWakeCancels(options.armed) } : {}),
    // A lease freed wakes its waiter through the handler's own queues, as the wiring gives them.
    ...(line.leases ? { leases: table.leases, leaseWaiters: queues } : {}),
    ...(line.claims?.length ? { claims: table.claims } : {}),
    ...(line.banks?.length ? { banks: table.banks } : {}),
    ...(sharedWakes ? { sharedWakes } : {}),
    ...(sharedWakes && queues && line.sharedWakes?.includes('take')
      ? { followers: { sharedWakes, queues } }
      : {}),
    ...(line.credentials ? { vault: fakes.vault } : {}),
    ...(line.provider?.length ? { provider: fakes.provider.port } : {}),
    ...(line.wallets ? { wallets: fakes.wallets } : {}),
    ...(line.ownerKeys ? { ownerDigests: fakes.ownerDigests } : {}),
    ...(line.dueIndex ? { due: table.due } : {}),
    ...(line.ownerIndex ? { owners: table.owners } : {}),
    ...(line.backendIndex ? { backends: table.backends } : {}),
    ...(line.statusIndex ? { byStatus: fakeStatusIndex(table), times: fakeStatusTimes(table) } : {}),
    ...(line.queueDepths ? { depths: fakes.depths } : {}),
    ...(line.approvals ? { approvalAbove: fakes.approvalAbove } : {}),
    ...(line.deliveries ? { deliveries: fakes.deliveries } : {}),
    ...(line.deliveries === 'resend' || line.relays ? { events: new FakeEventQueue() } : {}),
    ...(line.relays === 'stream' ? { unrelayed: new SetAside() } : {}),
  };
  // What the types cannot follow at run time, the unit test of the wiring holds to the same line.
  return context as unknown as FakeContext<H>;
}
