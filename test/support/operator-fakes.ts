/**
 * In-memory fakes of the operator's ports, over the deposits fake table: the status index (the
 * deposits by bucket, newest first, as the `byStatus` index and its step filter give them) and
 * fixed queue depths. They keep the adapters' contracts: a page and the position it ended at.
 */
import type { Deposit } from '#shared/deposits/model';
import { statusBucket } from '#shared/operator/model';
import type { QueueDepth, QueueDepths, StatusDeposits } from '#shared/operator/ports';
import type { FakeDepositsTable } from './deposit-fakes.ts';

const newestFirst = (a: Deposit, b: Deposit) => b.createdAt - a.createdAt || b.id.localeCompare(a.id);

export function fakeStatusIndex(table: FakeDepositsTable): StatusDeposits {
  return {
    page: async (query) => {
      const all = [...table.items.values()]
        .filter(
          (deposit) =>
            statusBucket(deposit) === query.bucket &&
            (query.step === undefined || deposit.step === query.step) &&
            (query.from === undefined || deposit.createdAt >= query.from) &&
            (query.to === undefined || deposit.createdAt < query.to),
        )
        .sort(newestFirst);
      const { after } = query;
      const start = after
        ? all.findIndex(
            (deposit) =>
              newestFirst(deposit, { createdAt: after.createdAt, id: after.depositId } as Deposit) > 0,
          )
        : 0;
      const from = start < 0 ? all.length : start;
      const deposits = all.slice(from, from + query.limit).map((deposit) => structuredClone(deposit));
      const last = deposits.at(-1);
      const more = from + query.limit < all.length;
      return { deposits, last: more && last ? { depositId: last.id, createdAt: last.createdAt } : undefined };
    },
  };
}

export class FixedQueueDepths implements QueueDepths {
  constructor(readonly depths: QueueDepth[]) {}

  async read(): Promise<QueueDepth[]> {
    return structuredClone(this.depths);
  }
}
