/**
 * In-memory fakes of the operator's ports, over the deposits fake table: the status index (the
 * deposits by bucket, newest first, as the `byStatus` index and its step filter give them) and
 * fixed queue depths. They keep the adapters' contracts: a page and the position it ended at.
 */
import { statusBucket } from '#shared/operator/model';
import type { QueueDepth, QueueDepths, StatusDeposits } from '#shared/operator/ports';
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
