/**
 * The cancel, by the deposit's owner (the deposits API) or by an operator (the operator API), of a
 * deposit that has not reached its transfer (it resolves the bank, registers the beneficiary, waits
 * for the cool-down, or waits for the caller's answer there):
 *   1. the deposit ends `failed` with type CANCELLED, in one conditional write that also erases its
 *      credentials and carries the event its caller hears (`fail`);
 *   2. the connection it held for a question, and the beneficiary claim it held, are freed (by `fail`);
 *      a beneficiary it created is no claim: its record stays, and the next deposit looks it up;
 *   3. its wake-up schedules are deleted; a payment source's followers (deposits waiting for its
 *      wake-up) are woken at once (by `fail`), each to arm its own for the instant it waits for.
 * Once the write of step 1 has landed the cancel is answered as done, whatever fails after it.
 * A deposit at its transfer, or finished, is refused and left as it is; so is a source that is ready
 * (or failed). The owner cancels a deposit through the deposits' route and a source through the
 * sources'; an operator either. A step that moves the deposit
 * meanwhile makes the write fail on its version: the cancel reads it again and decides again, so it
 * never cancels a deposit whose transfer attempt has been recorded.
 */
import type { Clock } from '#shared/clock';
import { type FailContext, fail } from '../journey/transitions.ts';
import { scheduleNamesOf } from '../journey/wake-ups.ts';
import { type Deposit, isSource } from '../model/deposit.ts';
import { DepositError } from '../model/errors.ts';
import { sourceView } from '../model/sources.ts';
import { depositView } from '../model/views.ts';
import type { WakeCancels } from '../ports/messaging.ts';
import type { OwnerDigests } from '../ports/provider.ts';
import { type Caller, sees } from './caller.ts';

export interface CancelContext extends FailContext {
  schedules: WakeCancels;
  clock: Clock;
}

/** The owner's cancel: also the keys of the caller's token and user secret, to find its own. */
export interface OwnerCancelContext extends CancelContext {
  ownerDigests: OwnerDigests;
}

/** How many times a cancel decides again when a step moved the deposit under it. */
const MAX_TRIES = 5;

/** The owner's cancel: a deposit of another backend (or connection, or user), or a source, does not exist to it. */
export async function cancelDeposit(request: { depositId: string } & Caller, ctx: OwnerCancelContext) {
  const cancelled = await cancelBeforeTransfer(
    ctx,
    request.depositId,
    (deposit): deposit is Deposit => sees(deposit, request, ctx.ownerDigests) && !isSource(deposit),
    { msg: 'Cancelled by its owner' },
  );
  return depositView(cancelled, ctx.clock.now());
}

/** The owner's cancel of a payment source that is not ready yet: the same rules, in the source's words. */
export async function cancelSource(request: { sourceId: string } & Caller, ctx: OwnerCancelContext) {
  const cancelled = await cancelBeforeTransfer(
    ctx,
    request.sourceId,
    (deposit): deposit is Deposit => sees(deposit, request, ctx.ownerDigests) && isSource(deposit),
    { msg: 'Cancelled by its owner', missing: 'SOURCE_NOT_FOUND' },
  );
  return sourceView(cancelled);
}

/**
 * Cancels the deposit if `admits` it (the owner's check; an operator's cancel admits any deposit),
 * ending it failed CANCELLED with `msg` (and the history `note`): the rules above, whoever asks. One
 * it does not admit is `missing` (DEPOSIT_NOT_FOUND unless said).
 */
export async function cancelBeforeTransfer(
  ctx: CancelContext,
  depositId: string,
  admits: (deposit: Deposit | undefined) => deposit is Deposit,
  ending: { msg: string; note?: string; missing?: 'SOURCE_NOT_FOUND' },
): Promise<Deposit> {
  for (let tries = 0; tries < MAX_TRIES; tries += 1) {
    const deposit = await ctx.deposits.get(depositId);
    if (!admits(deposit)) {
      const missing = ending.missing ?? 'DEPOSIT_NOT_FOUND';
      throw new DepositError(
        missing,
        `No ${missing === 'SOURCE_NOT_FOUND' ? 'source' : 'deposit'} ${depositId}`,
      );
    }
    refuseUnlessCancellable(deposit);
    const cancelled = await cancelOnce(ctx, deposit, ending);
    if (!cancelled) continue;
    // Its schedules are only tidied away: one left fires for a finished deposit, which is dropped.
    await Promise.allSettled([ctx.schedules.cancel(scheduleNamesOf(deposit))]);
    return cancelled;
  }
  throw new DepositError('DEPOSIT_BUSY', 'The deposit kept moving; read it and try again');
}

/**
 * The cancel's write (with what `fail` frees after it: the connection, the claim, a source's
 * followers). Once the write has landed the cancel has happened, whatever fails after it: an error
 * then is answered with the cancelled deposit, never a 500 (the sweeper and the claims' staleness
 * cover what was not freed).
 */
async function cancelOnce(
  ctx: CancelContext,
  deposit: Deposit,
  ending: { msg: string; note?: string },
): Promise<Deposit | undefined> {
  try {
    return await fail(ctx, deposit, 'CANCELLED', ending.msg, {}, ending.note);
  } catch (error) {
    const after = await ctx.deposits.get(deposit.id);
    const landed = after?.version === deposit.version + 1 && after.failure?.type === 'CANCELLED';
    if (landed && after.failure?.msg === ending.msg) return after;
    throw error;
  }
}

function refuseUnlessCancellable(deposit: Deposit) {
  if (isSource(deposit)) {
    // A source stops at its transfer step, ready: from there on it has nothing left to cancel.
    if (deposit.step === 'completed' || deposit.step === 'transfer') {
      const status = deposit.status === 'failed' ? 'failed' : 'ready';
      throw new DepositError('SOURCE_NOT_CANCELLABLE', `The source is ${status} already`);
    }
    return;
  }
  if (deposit.step === 'completed') {
    throw new DepositError('DEPOSIT_NOT_CANCELLABLE', `The deposit is ${deposit.status} already`);
  }
  if (deposit.step === 'transfer' || deposit.transfer?.attempt) {
    throw new DepositError(
      'DEPOSIT_NOT_CANCELLABLE',
      'The deposit has reached its transfer: money may be moving, it can no longer be cancelled',
    );
  }
}
