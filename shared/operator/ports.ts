/**
 * The ports of the operator's use cases besides the deposits' own (`shared/deposits/ports/`): the
 * deposits by status bucket (the `byStatus` index), and the depths of the service's queues. No AWS
 * here: `shared/adapters/deposits-status-index.ts` and `shared/adapters/queue-depths.ts` implement them.
 */
import type { Deposit, DepositStep } from '#shared/deposits/model/deposit';
import type { StatusBucket } from './model.ts';

/** Where a page of a bucket's deposits ended: its last deposit (or the last one looked at). */
export interface StatusPosition {
  depositId: string;
  createdAt: number;
}

export interface StatusQuery {
  bucket: StatusBucket;
  step?: DepositStep | undefined;
  /** Created at or after (ms). */
  from?: number | undefined;
  /** Created before (ms). */
  to?: number | undefined;
  limit: number;
  after?: StatusPosition | undefined;
}

/** A bucket's deposits, newest first, a page at a time: the operator's list. */
export interface StatusDeposits {
  /** Up to `limit` deposits of the bucket (at the step, in the range), after `after`; `last` when more may follow. */
  page(query: StatusQuery): Promise<{ deposits: Deposit[]; last?: StatusPosition | undefined }>;
}

/** How many messages one queue holds, and its dead-letter queue. */
export interface QueueDepth {
  name: string;
  visible: number;
  inFlight: number;
  delayed: number;
  dlq: { name: string; visible: number };
}

/** The depths of every queue of the service, in the topology's order. */
export interface QueueDepths {
  read(): Promise<QueueDepth[]>;
}

/** A bucket's creation times (at a step, in a range), newest first: what the counts and plots are made of. */
export interface StatusTimes {
  /** At most `cap` of them; `capped` when the bucket holds more. */
  createdTimes(
    query: Omit<StatusQuery, 'limit' | 'after'>,
    cap: number,
  ): Promise<{ times: number[]; capped: boolean }>;
}
