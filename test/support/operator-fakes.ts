/**
 * In-memory fakes of the operator's ports, over the deposits fake table: the status index (the
 * deposits by bucket, newest first, as the `byStatus` index and its step filter give them, and their
 * creation times), fixed queue depths, and the webhook deliveries' records. They keep the adapters' contracts: a page and the position it ended at.
 */
import type { Delivery, DeliveryRecords, TryRecord } from '#shared/deposits/background/deliveries';
import { statusBucket } from '#shared/operator/model';
import type { QueueDepth, QueueDepths, StatusDeposits, StatusTimes } from '#shared/operator/ports';
import { type FakeDepositsTable, newestFirstPage } from './deposit-fakes.ts';

export function fakeStatusIndex(table: FakeDepositsTable): StatusDeposits {
  return {
    page: async (query) =>
      newestFirstPage(
        [...table.items.values()].filter(
          (deposit) =>
            statusBucket(deposit) === query.bucket &&
            (query.step === undefined || deposit.step === query.step) &&
            (query.from === undefined || deposit.createdAt >= query.from) &&
            (query.to === undefined || deposit.createdAt < query.to),
        ),
        query.limit,
        query.after,
      ),
  };
}

export class FixedQueueDepths implements QueueDepths {
  constructor(readonly depths: QueueDepth[]) {}

  async read(): Promise<QueueDepth[]> {
    return structuredClone(this.depths);
  }
}

/** The delivery records in memory, with the adapter's contract: a try adds to its record, made by the first. */
export class FakeDeliveryRecords implements DeliveryRecords {
  readonly records = new Map<string, Delivery>();

  async tried({ event, attempt, state, nextTryAt }: TryRecord): Promise<void> {
    const key = `${event.depositId}/${event.id}`;
    const found = this.records.get(key);
    const record: Delivery = found ?? {
      depositId: event.depositId,
      eventId: event.id,
      event: structuredClone(event),
      state,
      attempts: 0,
      firstTriedAt: attempt.at,
      lastTriedAt: attempt.at,
      tries: [],
      resends: 0,
    };
    record.state = state;
    record.attempts += 1;
    record.lastTriedAt = attempt.at;
    record.tries.push({ ...attempt });
    if (attempt.outcome === 'delivered') record.deliveredAt ??= attempt.at;
    if (nextTryAt === undefined) delete record.nextTryAt;
    else record.nextTryAt = nextTryAt;
    this.records.set(key, record);
  }

  async of(depositId: string): Promise<Delivery[]> {
    return [...this.records.values()]
      .filter((record) => record.depositId === depositId)
      .map((r) => structuredClone(r));
  }

  async get(depositId: string, eventId: string): Promise<Delivery | undefined> {
    const found = this.records.get(`${depositId}/${eventId}`);
    return found && structuredClone(found);
  }

  async resent(depositId: string, eventId: string, by: { by: string; at: number }): Promise<number> {
    const found = this.records.get(`${depositId}/${eventId}`);
    if (!found) throw new Error(`no record of ${eventId}`);
    found.resends += 1;
    found.lastResend = { ...by };
    return found.resends;
  }
}

/** The status index's creation times, over the deposits fake table (as the adapter: newest first, capped). */
export function fakeStatusTimes(table: FakeDepositsTable): StatusTimes {
  return {
    createdTimes: async (query, cap) => {
      const times = [...table.items.values()]
        .filter(
          (deposit) =>
            statusBucket(deposit) === query.bucket &&
            (query.step === undefined || deposit.step === query.step) &&
            (query.from === undefined || deposit.createdAt >= query.from) &&
            (query.to === undefined || deposit.createdAt < query.to),
        )
        .map((deposit) => deposit.createdAt)
        .sort((a, b) => b - a);
      return { times: times.slice(0, cap), capped: times.length > cap };
    },
  };
}
