/**
 * reconcile: reads the transfer operation the bank accepted (`/v2/operation/get`: the spec shows no
 * read of an operation, the provider's public documentation names this one; by the id recorded with
 * its submission's answer) until the bank says how it ended:
 *   1. done: the deposit is done with the bank's reference;
 *   2. refused (a refusal that names the transfer's operation, with a type that refuses a transfer,
 *      `TRANSFER_REFUSALS`, not "later"): nothing moved; another try where the bank says how, a
 *      failure otherwise;
 *   3. a question for the caller: the deposit waits for input at the transfer, which answers it, its
 *      time counted from the submission (when the bank began waiting); found too late, asked again;
 *   4. still running, or the read itself failed (no answer, a server error, the read refused, a 429
 *      or a busy connection, any other refusal, whatever it names): read again
 *      after a delay that doubles, up to `pollCapMs` (15 minutes by default), and no sooner than a refusal's Retry-After
 *      (within those 15 minutes); after `maxPolls` reads (`RECONCILE_MAX_POLLS`) the deposit fails
 *      TRANSFER_OUTCOME_UNKNOWN with the operation's id, for an operator to resolve.
 * Reads change nothing at the bank: they need no lease and may be repeated.
 */
import { ProviderRefusal, ProviderUnknownOutcome } from '#shared/provider/client';
import { openCredentials } from '../journey/connection.ts';
import { LATE_ANSWERS, tooLateToAsk } from '../journey/input.ts';
import { laterDelaySeconds, saysLater } from '../journey/later.ts';
import { apply, type Next } from '../journey/next.ts';
import type { Deposit } from '../model/deposit.ts';
import { transferWith } from '../model/deposit-work.ts';
import type { StepContext } from '../step-context.ts';
import { noTransfer, pollDelaySeconds, transferDone, transferRefused } from './transfer-outcomes.ts';

/** What reconcile touches: its line in `reach.ts`. */
export type ReconcileContext = StepContext<'reconcile'>;

/**
 * The refusals that say the bank refused the transfer itself, and so that nothing moved: read back,
 * one of these ends the attempt when it names the transfer's own operation and is not "later"
 * (`saysLater`: a 429 of any type, a busy connection). Any other refusal of the read, whatever it
 * names (a token refused, a 403, a 409, a type never seen), says nothing of the transfer: a provider
 * may echo the operation's id in every failed envelope. It is read again, and past `maxPolls` its
 * outcome stays unknown, for an operator; never "nothing moved", which a caller could retry.
 */
export const TRANSFER_REFUSALS: ReadonlySet<string> = new Set([
  'INSUFFICIENT_BALANCE',
  'AMOUNT_BELOW_MINIMUM',
  'BENEFICIARY_REQUIRED',
  'BENEFICIARY_NOT_SUPPORTED',
  'BENEFICIARY_DETAILS_REQUIRED',
  'BENEFICIARY_DETAILS_MISMATCH',
  'BENEFICIARY_COOL_DOWN_PERIOD',
  'INVALID_BENEFICIARY_ID',
  // The bank's wait for the caller's answer ran out, or the answer was wrong: the operation failed.
  LATE_ANSWERS,
  'INVALID_MFA',
]);

/** What the read of the transfer operation answered: the operation, or why there is none. */
type Read = Awaited<ReturnType<ReconcileContext['provider']['getOperation']>> | { failed: unknown };

export async function reconcile(deposit: Deposit, ctx: ReconcileContext): Promise<void> {
  const operationID = deposit.transfer?.operationId;
  let read: Read | undefined;
  if (operationID) {
    try {
      read = await ctx.provider.getOperation(await openCredentials(ctx, deposit), { operationID });
    } catch (error) {
      if (!(error instanceof ProviderRefusal || error instanceof ProviderUnknownOutcome)) throw error;
      read = { failed: error };
    }
  }
  await apply(ctx, deposit, afterRead(deposit, read, ctx));
}

/** What follows the read of the transfer's operation (none: its id is not on record). */
export function afterRead(
  deposit: Deposit,
  read: Read | undefined,
  ctx: Pick<ReconcileContext, 'clock' | 'settings'>,
): Next {
  const operationID = deposit.transfer?.operationId;
  if (!operationID || !read) {
    const msg = 'The transfer was submitted, but the id of its operation is not on record';
    return { kind: 'fail', type: 'TRANSFER_OUTCOME_UNKNOWN', msg };
  }
  if ('failed' in read) {
    const error = read.failed;
    if (error instanceof ProviderRefusal && refusesTransfer(error, operationID))
      return transferRefused(deposit, error, ctx.clock.now(), ctx.settings);
    if (error instanceof ProviderRefusal)
      return readLater(deposit, ctx, `the read was refused (${error.type})`, error.retryAfterMs);
    return readLater(deposit, ctx, `the read failed (${(error as ProviderUnknownOutcome).reason})`);
  }
  switch (read.status) {
    case 'done':
      return transferDone(deposit, read.response.reference);
    case 'initialized':
      return readLater(deposit, ctx, 'still running');
    case 'user_input_required': {
      // The bank has waited for the answer since the submission: a question found too late to be
      // answered in time is asked again (nothing moved), else shown with the time it has left.
      const since = deposit.transfer?.attempt?.at ?? ctx.clock.now();
      const also = { step: 'transfer' as const, ...noTransfer };
      if (tooLateToAsk(ctx, deposit, since)) {
        const refusal = { type: LATE_ANSWERS, msg: 'The question was found too late to be answered in time' };
        return { kind: 'ask-again', step: 'transfer', refusal, changes: also };
      }
      // The transfer asks its caller: it waits at the transfer, whose repeat carries the answers.
      return { kind: 'ask', step: 'transfer', question: read, operation: 'transfer', also, since };
    }
  }
}

function refusesTransfer(refusal: ProviderRefusal, operationID: string): boolean {
  // "Later" on the read (a 429 whatever its type, a busy connection) is later for the read: it says
  // nothing of the transfer, which is never sent again on it.
  return refusal.operationId === operationID && TRANSFER_REFUSALS.has(refusal.type) && !saysLater(refusal);
}

/**
 * Reads the operation again after the next delay, or after the wait the provider asked for
 * (`retryAfterMs`, its `Retry-After`) when longer, at most 15 minutes; past `maxPolls` reads its
 * outcome stays unknown.
 */
function readLater(
  deposit: Deposit,
  ctx: Pick<ReconcileContext, 'clock' | 'settings'>,
  reason: string,
  retryAfterMs?: number,
): Next {
  const polls = (deposit.transfer?.polls ?? 0) + 1;
  if (polls >= ctx.settings.maxPolls) {
    const msg = `The bank never told how transfer operation ${deposit.transfer?.operationId} ended, in ${polls} reads (last: ${reason})`;
    return { kind: 'fail', type: 'TRANSFER_OUTCOME_UNKNOWN', msg };
  }
  const delaySeconds = laterDelaySeconds(pollDelaySeconds(polls, ctx.settings.pollCapMs), retryAfterMs);
  const pollAt = ctx.clock.now() + delaySeconds * 1000;
  const note = `transfer outcome, read ${polls}: ${reason}`;
  const changes = transferWith(deposit, { polls, pollAt });
  return { kind: 'move', changes, note, send: { step: 'reconcile', delaySeconds } };
}
