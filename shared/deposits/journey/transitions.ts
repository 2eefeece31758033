/**
 * How a deposit moves: every change is a conditional write on its version (`advance`), so that
 * duplicate, late and re-ordered messages find it moved on and do nothing. A change its caller must
 * hear of carries its event in that same write (the deposit's outbox, `event`): the table's stream
 * relays it (`outbox.ts`), so the event follows from the change itself, whatever dies after it.
 * Around it: failing a deposit, sending its step's message now or after a short delay, and the
 * time the sweeper should look at it if nothing else does. Coming back later (a busy connection, a
 * retry) is `later.ts`.
 */

import { randomUUID } from 'node:crypto';
import type { Clock } from '#shared/clock';
import { fromMinorUnits } from '#shared/money';
import { type Deposit, isSource, type WorkStep } from '../model/deposit.ts';
import type { DepositEvent } from '../model/events.ts';
import { failureTypeOf, ownerMessage } from '../model/failures.ts';
import { messageFor } from '../model/messages.ts';
import { asSourceEvent } from '../model/sources.ts';
import { businessView } from '../model/views.ts';
import type { BeneficiaryClaims } from '../ports/connection.ts';
import type { DepositObserver, StepQueues } from '../ports/messaging.ts';
import type { DepositRecords } from '../ports/records.ts';
import type { DepositSettings } from '../ports/settings.ts';
import { type FreeingContext, freeLease } from './lease-waits.ts';
import { type FollowersContext, wakeFollowers } from './wake-ups.ts';

/**
 * What a change of state touches: the deposit itself, and the metric of its transitions; and, where a
 * step may hold the beneficiary claim, the claims (`endedElsewhere`).
 */
export interface TransitionContext {
  deposits: DepositRecords;
  clock: Clock;
  settings: DepositSettings;
  observer?: DepositObserver | undefined;
  claims?: Pick<BeneficiaryClaims, 'release'> | undefined;
}

/**
 * What failing a deposit touches, in every handler that may fail one: the connection it waited on
 * is freed, a beneficiary it was creating can be created by another, and the deposits that followed
 * a failed payment source's wake-up are woken, each to go on by itself.
 */
export interface FailContext extends TransitionContext, FreeingContext {
  claims: Pick<BeneficiaryClaims, 'release'>;
  followers: FollowersContext;
}

/** An event the caller hears of a transition: its type, and what it says besides status and step. */
export interface EventOf {
  type: DepositEvent['type'];
  data: Record<string, unknown>;
}

/**
 * The conditional transition: writes the next version if the deposit is still at this one, with
 * the event of this version in the same write when the caller must hear of it.
 */
export async function advance(
  ctx: TransitionContext,
  deposit: Deposit,
  changes: Partial<Deposit>,
  note?: string,
  event?: EventOf,
): Promise<Deposit | undefined> {
  const now = ctx.clock.now();
  const next: Deposit = { ...deposit, ...changes, version: deposit.version + 1, updatedAt: now };
  next.event = event && (isSource(next) ? asSourceEvent(eventOf(next, event), next) : eventOf(next, event));
  // A new step counts its own retries and busy waits, unless the change sets them.
  if (!('stepCounters' in changes) && next.step !== deposit.step) next.stepCounters = { retries: 0 };
  if (!('leaseHeld' in changes)) next.leaseHeld = undefined;
  // Progress: the sweeper starts over with its shortest delay.
  next.redrives = undefined;
  const moved = next.step !== deposit.step || next.status !== deposit.status;
  if (moved || note) {
    next.history = [
      ...deposit.history,
      { step: next.step, status: next.status, at: now, ...(note ? { note } : {}) },
    ];
  }
  if (next.status === 'done' || next.status === 'failed') {
    next.sealedCredentials = undefined;
    next.sealedAnswers = undefined;
    next.checkAt = undefined;
  } else {
    // A change may ask for a later look than its step's (a wait the bank asked for), never an earlier one.
    next.checkAt = Math.max(checkAt(next, now, ctx.settings.stallAfterMs), changes.checkAt ?? 0);
  }
  next.writeId = randomUUID();
  if (!(await ctx.deposits.save(next, deposit.version))) {
    // Refused by its condition: our own write, landed (its answer lost, the SDK's retry found the
    // version moved, by us), or another writer's.
    const stored = await ctx.deposits.get(next.id);
    if (stored?.version !== next.version || stored.writeId !== next.writeId) {
      await endedElsewhere(ctx, deposit, stored);
      return undefined;
    }
  }
  if (moved) ctx.observer?.transitioned(next.status, next.step);
  return next;
}

/** Whether the deposit's step may hold the beneficiary claim (creating it, or waiting on its cool-down). */
const mayHoldClaim = (deposit: Deposit) =>
  deposit.step === 'ensure-beneficiary' || deposit.step === 'wait-cooldown' || isSource(deposit);

/**
 * Another writer ended the deposit under this run (its caller cancelled it, say). That end gave back
 * the claim it found; one this run took or refreshed after it, from its read of the deposit before
 * the end, would stay live for its whole life (some two minutes), every other deposit of the
 * connection waiting: given back here (only if this deposit holds it, still creating). The refused
 * write's read finds the end, so the hot path reads nothing more.
 */
async function endedElsewhere(ctx: TransitionContext, deposit: Deposit, stored: Deposit | undefined) {
  const ended = stored?.status === 'done' || stored?.status === 'failed';
  if (ended && ctx.claims && mayHoldClaim(deposit))
    await ctx.claims.release(deposit.ownerKey, deposit.walletAccountId, deposit.id);
}

/**
 * When the sweeper should look at a deposit that nothing moved: after the latest of the waits it
 * records (its cool-down, its beneficiary's look-up, a sleep on another deposit's claim, the next
 * read of its transfer), plus the stall time; or, waiting for its caller, after the question expires.
 */
export function checkAt(deposit: Deposit, now: number, stallAfterMs: number): number {
  if (deposit.status === 'user_input_required')
    return (deposit.pendingInput?.expiresAt ?? now) + stallAfterMs;
  const waits = [
    deposit.step === 'wait-cooldown' ? deposit.cooldownUntil : undefined,
    deposit.beneficiaryWork?.lookupAt,
    deposit.beneficiaryWork?.sleepsUntil,
    deposit.step === 'reconcile' ? deposit.transfer?.pollAt : undefined,
  ];
  return Math.max(now, ...waits.map((until) => until ?? now)) + stallAfterMs;
}

/** Ends the deposit as failed with a type its caller can act on (and a history note), and tells the caller. */
export async function fail(
  ctx: FailContext,
  deposit: Deposit,
  type: string,
  msg: string,
  changes: Partial<Deposit> = {},
  note?: string,
) {
  // A type neither ours nor the interface's is told as a fixed one; the record's message keeps it.
  const told = failureTypeOf(type);
  const failure = told === type ? { type, msg } : { type: told, msg: `${type}: ${msg}` };
  const failed = await advance(
    ctx,
    deposit,
    { ...changes, status: 'failed', step: 'completed', failure, pendingInput: undefined },
    note,
    { type: 'deposit.failed', data: { type: told, msg: ownerMessage(told) } },
  );
  // Another writer moved the deposit first: what it holds is that writer's to keep or free (but a
  // claim taken after an end that writer made, which `advance` gave back: `endedElsewhere`).
  if (!failed) return undefined;
  await freeLease(ctx, deposit.ownerKey, ownLease(deposit));
  // A deposit that waited in its step may wait for another's lease still: its wait goes with it, so
  // that the lease's freer wakes the next waiter, not an ended deposit.
  if (deposit.stepCounters.busyWaits) await ctx.leases.wake(deposit.ownerKey, deposit.id);
  // A deposit creating the beneficiary holds the claim (the release is conditional on this deposit
  // holding it, still creating: a beneficiary it created stays on record for the others).
  if (mayHoldClaim(deposit)) await ctx.claims.release(deposit.ownerKey, deposit.walletAccountId, deposit.id);
  if (isSource(deposit)) await wakeFollowers(ctx.followers, deposit);
  return failed;
}

/**
 * Ends a deposit whose step keeps failing, with a type its caller can act on: STEP_FAILED, or
 * TRANSFER_OUTCOME_UNKNOWN when a transfer attempt is on record (money may have moved).
 */
export function giveUp(ctx: FailContext, deposit: Deposit, reason: string) {
  if (deposit.transfer?.attempt) {
    const msg = `${reason}; a transfer attempt is on record: reconcile with the provider before retrying`;
    return fail(ctx, deposit, 'TRANSFER_OUTCOME_UNKNOWN', msg);
  }
  return fail(ctx, deposit, 'STEP_FAILED', reason);
}

/**
 * The lease a deposit keeps on its connection while the bank works for it: waiting for its caller's
 * answer, or carrying out its transfer (the bank holds the connection until the transfer ends, so
 * another deposit's call would only hear "busy"). Its step takes it back; its outcome or end frees it.
 */
export function ownLease(deposit: Pick<Deposit, 'id'>) {
  return `${deposit.id}#own`;
}

/** Sends the message of `step`, which the deposit is at (or, for a wake-up of the transfer, waits for). */
export function sendStep<S extends WorkStep>(
  ctx: { queues: StepQueues<S> },
  deposit: Deposit,
  step: S,
  delaySeconds?: number,
) {
  return ctx.queues.send(messageFor(deposit, step), delaySeconds);
}

/** Sends the deposit's step again after a short delay that grows with its retries. */
export function requeue<S extends WorkStep>(ctx: { queues: StepQueues<S> }, deposit: Deposit, step: S) {
  return sendStep(ctx, deposit, step, Math.min(30, 1 + deposit.stepCounters.retries * 2));
}

/**
 * The event of this version of the deposit; its id is stable, so receivers de-duplicate. It carries
 * what the caller needs to book it without a read: the amount, the currency, the sender's account,
 * the caller's own `clientReference` and `metadata`, and the times (a source moves no money: its
 * times only). Never a secret: none of these is one, and the create refuses business fields that
 * hold one.
 */
function eventOf(deposit: Deposit, event: EventOf): DepositEvent {
  const business = isSource(deposit)
    ? {}
    : {
        amount: fromMinorUnits(deposit.amountMinor, deposit.currency),
        currency: deposit.currency,
        senderID: deposit.senderId,
        ...businessView(deposit),
      };
  return {
    id: `${deposit.id}.v${deposit.version}`,
    type: event.type,
    depositId: deposit.id,
    occurredAt: new Date(deposit.updatedAt).toISOString(),
    // The version orders a deposit's events for a receiver that gets them late or twice.
    data: {
      status: deposit.status,
      step: deposit.step,
      version: deposit.version,
      ...business,
      createdAt: new Date(deposit.createdAt).toISOString(),
      updatedAt: new Date(deposit.updatedAt).toISOString(),
      ...event.data,
    },
  };
}
