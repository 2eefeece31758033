/**
 * Coming back later, counted and bounded: a connection busy with another operation (the bank's
 * "busy", a 429, another deposit's lease) is waited for with a growing delay, no sooner than the
 * provider's `Retry-After`; a read whose outcome was unknown is retried. Past their limits the deposit
 * fails PROVIDER_UNAVAILABLE.
 */
import type { Deposit, WorkStep } from '../model/deposit.ts';
import { countedInStep } from '../model/deposit-work.ts';
import type { ConnectionLeases } from '../ports/connection.ts';
import type { StepQueues } from '../ports/messaging.ts';
import { advance, type FailContext, fail, requeue, sendStep } from './transitions.ts';
import { MAX_SQS_DELAY_SECONDS } from './wake-ups.ts';

/**
 * How many times a step comes back for a busy connection, before the deposit fails: generous, since
 * another operation of the same user (its questions wait for their caller, some four minutes) keeps
 * the connection a while; the waits grow to half a minute, some five minutes in all or more.
 */
export const MAX_BUSY_WAITS = 24;

/**
 * How many of those waits, for a lease another deposit of the connection holds, are a second each:
 * the holder's call, or the bank's carrying out of its transfer, ends within a second or two, and the
 * step spins on the lease for its patience before it waits; then they grow like the bank's busy.
 */
export const SHORT_LEASE_WAITS = 8;

/**
 * Whether a refusal says "later", never "no": the connection is busy with another operation, or the
 * provider limits the rate of requests (a 429, whatever its type). Nothing happened at the bank.
 */
export function saysLater(refusal: { type: string; httpStatus: number }): boolean {
  return (
    refusal.type === 'OPERATION_IN_PROGRESS' ||
    refusal.type === 'TOO_MANY_REQUESTS' ||
    refusal.httpStatus === 429
  );
}

/** The wait a refusal asked for (its `Retry-After`), as a decision's field, when it asked one. */
export function retryAfterOf(refusal: { retryAfterMs?: number | undefined }): { retryAfterMs?: number } {
  return refusal.retryAfterMs === undefined ? {} : { retryAfterMs: refusal.retryAfterMs };
}

/**
 * The delay, in seconds, before trying again after "later": `regularSeconds`, or longer when the
 * provider asked for longer (its `Retry-After`), up to SQS's longest delay (15 minutes).
 */
export function laterDelaySeconds(regularSeconds: number, retryAfterMs?: number): number {
  const asked = retryAfterMs === undefined ? 0 : Math.ceil(retryAfterMs / 1000);
  return Math.min(MAX_SQS_DELAY_SECONDS, Math.max(regularSeconds, asked));
}

/**
 * The bank's connection is busy with another operation (or the provider asks for fewer requests):
 * nothing happened, come back after a growing wait (with `changes`), or after the wait the provider
 * asked for (`retryAfterMs`, its `Retry-After`) when longer, at most 15 minutes; the sweeper's look
 * waits for it too. Counted apart from the retries of failed calls; past `MAX_BUSY_WAITS` the
 * deposit fails PROVIDER_UNAVAILABLE.
 */
export function waitForConnection<S extends WorkStep>(
  ctx: FailContext & { queues: StepQueues<S> },
  deposit: Deposit,
  step: S,
  changes: Partial<Deposit> = {},
  retryAfterMs?: number,
) {
  const waits = deposit.stepCounters.busyWaits ?? 0;
  return waitBusy(ctx, deposit, step, {
    changes,
    delaySeconds: laterDelaySeconds(growingWait(waits), retryAfterMs),
  });
}

/**
 * Another deposit of the connection holds its lease past the step's patience: the deposit waits on
 * the lease, where its holder wakes it when it frees it (`lease-waits.ts`), and comes back anyway in
 * a second, then (past `SHORT_LEASE_WAITS`) after the growing wait, counted with the bank's busy
 * answers; at once if the lease is free by the time its wait would be recorded.
 */
export function waitForLease<S extends WorkStep>(
  ctx: FailContext & { queues: StepQueues<S>; leases: Pick<ConnectionLeases, 'wait'> },
  deposit: Deposit,
  step: S,
) {
  const waits = deposit.stepCounters.busyWaits ?? 0;
  const delay = waits < SHORT_LEASE_WAITS ? 1 : growingWait(waits - SHORT_LEASE_WAITS);
  return waitBusy(ctx, deposit, step, { delaySeconds: delay, onLease: ctx.leases });
}

/** 1 s, then 2 s more for each wait before, at most half a minute. */
function growingWait(waits: number) {
  return Math.min(30, 1 + waits * 2);
}

/** A busy wait: what it changes, when the step comes back, and the lease it waits on, if it does. */
interface BusyWait {
  changes?: Partial<Deposit>;
  delaySeconds: number;
  onLease?: Pick<ConnectionLeases, 'wait'>;
}

async function waitBusy<S extends WorkStep>(
  ctx: FailContext & { queues: StepQueues<S> },
  deposit: Deposit,
  step: S,
  { changes = {}, delaySeconds, onLease }: BusyWait,
) {
  const waits = deposit.stepCounters.busyWaits ?? 0;
  if (waits >= MAX_BUSY_WAITS) {
    const msg = `The bank kept the connection busy through ${waits} tries`;
    return fail(ctx, deposit, 'PROVIDER_UNAVAILABLE', msg, changes);
  }
  const now = ctx.clock.now();
  const lookAt = now + delaySeconds * 1000 + ctx.settings.stallAfterMs;
  const next = await advance(
    ctx,
    deposit,
    { ...changes, ...countedInStep(deposit, 'busyWaits'), checkAt: lookAt },
    'connection busy',
  );
  if (!next) return;
  await sendStep(ctx, next, step, delaySeconds);
  if (!onLease) return;
  // Its timer is sent first: whatever becomes of the record, something moves the deposit. Freed
  // meanwhile, the lease wakes nobody: the step comes back at once (the later copy is a duplicate).
  const waiter = { depositId: next.id, version: next.version, step, since: now };
  if (!(await onLease.wait(next.ownerKey, withTrace(waiter, next.trace), now)))
    await sendStep(ctx, next, step);
}

const withTrace = <W extends object>(waiter: W, trace: string | undefined) =>
  trace === undefined ? waiter : { ...waiter, trace };

/**
 * Counts one more retry of the step (with `changes`) and comes back later; past the limit, the
 * deposit fails.
 */
export async function retryLater<S extends WorkStep>(
  ctx: FailContext & { queues: StepQueues<S> },
  deposit: Deposit,
  step: S,
  reason: string,
  changes: Partial<Deposit> = {},
) {
  const { retries } = deposit.stepCounters;
  if (retries >= ctx.settings.maxRetries) {
    return fail(ctx, deposit, 'PROVIDER_UNAVAILABLE', `Gave up after ${retries} retries: ${reason}`);
  }
  const next = await advance(ctx, deposit, { ...changes, ...countedInStep(deposit, 'retries') }, reason);
  if (next) await requeue(ctx, next, step);
}
