/**
 * The operator's reads: any deposit by id; a status bucket's deposits, newest first (at a step, in a
 * range of creation times), a page at a time; the depths of the service's queues.
 */
import type { Clock } from '#shared/clock';
import type { DepositStep } from '#shared/deposits/model/deposit';
import { DepositError } from '#shared/deposits/model/errors';
import type { DepositRecords } from '#shared/deposits/ports/records';
import { cursorOf, positionOf } from '#shared/deposits/requests/read';
import { operatorView, type StatusBucket } from './model.ts';
import type { QueueDepths, StatusDeposits } from './ports.ts';

export interface OperatorReadContext {
  deposits: Pick<DepositRecords, 'get'>;
  clock: Pick<Clock, 'now'>;
}

export async function getDeposit(request: { depositId: string }, ctx: OperatorReadContext) {
  const deposit = await ctx.deposits.get(request.depositId);
  if (!deposit) throw new DepositError('DEPOSIT_NOT_FOUND', `No deposit ${request.depositId}`);
  return operatorView(deposit, ctx.clock.now());
}

export interface StatusListContext {
  byStatus: StatusDeposits;
  clock: Pick<Clock, 'now'>;
}

export interface StatusListRequest {
  status: StatusBucket;
  /** A step no deposit has (`reconcile` before that step exists) lists nothing. */
  step?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/**
 * A bucket's deposits, newest first, and the service's time; `cursor` continues where a page ended. The cursor names its
 * bucket and must lie in the range asked: a cursor of another list is refused, not misread.
 */
export async function listByStatus(request: StatusListRequest, ctx: StatusListContext) {
  const from = request.from === undefined ? undefined : Date.parse(request.from);
  const to = request.to === undefined ? undefined : Date.parse(request.to);
  const after = request.cursor === undefined ? undefined : positionOf(request.cursor, request.status);
  if (
    after &&
    ((from !== undefined && after.createdAt < from) || (to !== undefined && after.createdAt >= to))
  )
    // A cursor of this bucket, but of another range: not this list's.
    throw new DepositError('INVALID_CURSOR', 'The cursor is not one this list answered', ['cursor']);
  const page = await ctx.byStatus.page({
    bucket: request.status,
    step: request.step as DepositStep | undefined,
    from,
    to,
    limit: request.limit,
    after,
  });
  const now = ctx.clock.now();
  const deposits = page.deposits.map((deposit) => operatorView(deposit, now));
  return {
    deposits,
    ...(page.last ? { cursor: cursorOf(page.last, request.status) } : {}),
    // The service's time (the local stack's movable clock): the console's countdowns count from it.
    now: new Date(now).toISOString(),
  };
}

/** The service's queues and their DLQs, as SQS counts them (approximately) now. */
export async function readQueues(ctx: { depths: QueueDepths }) {
  return { queues: await ctx.depths.read() };
}
