/**
 * transfer, at most once:
 *   1. a deposit woken before its cool-down ends waits again; after it, it moves to transfer;
 *   2. a payment source stops here, ready, and wakes the deposits that followed its wake-up; an
 *      attempt already recorded means money may have moved: never call again, fail for reconciliation;
 *   3. opens the credentials, takes the connection's lease (a busy one is waited for, recorded) and
 *      records the attempt (conditional on the version);
 *   4. submits the transfer once: by beneficiary id (with its details on a first transfer) and
 *      `sync: false`, so that the bank names the operation before its outcome is known; or, for
 *      banks that create no beneficiary, with the receiver inline (that call has no `sync`);
 *   5. what follows the answer is a decision (`afterSubmission`, made so by `apply`): accepted
 *      (`initialized`): the deposit keeps the connection's lease while the bank carries the transfer
 *      out, the operation's id is recorded with that answer and `reconcile` reads its outcome; done:
 *      done with the bank's reference; a question for the caller; a refusal
 *      (`transfer-outcomes.ts`); an unknown outcome of the submission itself fails as
 *      TRANSFER_OUTCOME_UNKNOWN, for an operator to resolve; answers refused as spent (no operation
 *      waits for them: the answered transfer may have run) read the answered operation's record.
 * Steps 1 to 3 are its phases before the one call: the cool-down's end and the attempt are written
 * before the bank is called, each conditional on the version.
 */
import {
  type InputAnswer,
  type ProviderAnswer,
  ProviderRefusal,
  ProviderUnknownOutcome,
} from '#shared/provider/client';
import { leaseWait, openCredentials, takeLease } from '../journey/connection.ts';
import { answerFor, SPENT_ANSWERS } from '../journey/input.ts';
import { freeLease } from '../journey/lease-waits.ts';
import { after, apply, applyHolding, type Next } from '../journey/next.ts';
import { advance } from '../journey/transitions.ts';
import { bankOf, type Deposit, isSource } from '../model/deposit.ts';
import { transferWith } from '../model/deposit-work.ts';
import { walletOf } from '../model/wallets.ts';
import type { DepositCredentials } from '../ports/provider.ts';
import type { StepContext } from '../step-context.ts';
import { outcomeAwaited, transferDone, transferRefused } from './transfer-outcomes.ts';

/** What transfer touches: its line in `reach.ts`. */
export type TransferContext = StepContext<'transfer'>;

export async function transfer(woken: Deposit, ctx: TransferContext): Promise<void> {
  const deposit = await pastCoolDown(ctx, woken);
  if (!deposit) return;
  const before = beforeTheCall(deposit, ctx.clock.now(), ctx.settings.stallAfterMs);
  if (before) {
    await applyHolding(ctx, deposit, before);
    return;
  }
  // Everything the call needs is opened before the attempt is recorded: a failure to open them is
  // a step that failed, not a transfer whose outcome is unknown.
  const answer = await answerFor(ctx, deposit);
  const credentials = await openCredentials(ctx, deposit);
  const lease = await takeLease(ctx, deposit);
  if (lease === 'busy') {
    await apply(ctx, deposit, await leaseWait(ctx, deposit, 'transfer'));
    return;
  }
  const attempting = await advance(
    ctx,
    deposit,
    transferWith(deposit, { attempt: { at: ctx.clock.now(), answering: answer !== undefined } }),
  );
  if (!attempting) return freeLease(ctx, deposit.ownerKey, lease);
  let submission: Submission;
  try {
    submission = await submitTransfer(ctx, attempting, credentials, answer);
  } catch (error) {
    if (!(error instanceof ProviderRefusal || error instanceof ProviderUnknownOutcome)) {
      await freeLease(ctx, deposit.ownerKey, lease);
      throw error;
    }
    submission = { failed: error };
  }
  const call = { lease, answer, now: ctx.clock.now() };
  await apply(ctx, attempting, afterSubmission(attempting, submission, call, ctx.settings));
}

/**
 * A deposit woken in its cool-down: before its end it comes back then (nothing written); after it,
 * it moves to the transfer (written, on the version) and goes on. Undefined: nothing more to do.
 */
async function pastCoolDown(ctx: TransferContext, deposit: Deposit): Promise<Deposit | undefined> {
  if (deposit.step !== 'wait-cooldown') return deposit;
  const until = deposit.cooldownUntil ?? 0;
  if (until > ctx.clock.now()) {
    await apply(ctx, deposit, {
      kind: 'wake',
      step: 'transfer',
      at: until,
      why: 'woken before the cool-down ends',
    });
    return undefined;
  }
  return advance(ctx, deposit, { step: 'transfer' }, 'cool-down over');
}

/**
 * What follows before any call: a payment source stops here, ready, and wakes the deposits that
 * followed its wake-up; an attempt already recorded means money may have moved: never call again.
 * Undefined: the transfer is to be called.
 */
export function beforeTheCall(deposit: Deposit, now: number, stallAfterMs: number): Next | undefined {
  if (isSource(deposit)) {
    return {
      kind: 'move',
      changes: { status: 'done', step: 'completed' },
      note: 'ready: deposits into this wallet account go straight to the transfer',
      event: { type: 'deposit.done', data: {} },
      after: [{ followers: 'wake' }],
    };
  }
  const attempt = deposit.transfer?.attempt;
  if (!attempt) return undefined;
  // A copy of the message while the attempt may still be in flight (SQS delivers at least once,
  // a copy may come while the first run waits for the bank): the attempt is that run's to finish.
  // Nothing is written, so its outcome lands; if it died instead, the sweeper re-drives the
  // deposit past its check time, and then the attempt on record is an interrupted one.
  if (attempt.at + stallAfterMs > now) {
    return { kind: 'nothing', why: 'an attempt of another run may still be in flight' };
  }
  const msg = 'A transfer attempt was interrupted; reconcile with the provider before retrying';
  return { kind: 'fail', type: 'TRANSFER_OUTCOME_UNKNOWN', msg };
}

/** What the submission answered, or the provider's refusal or unknown outcome instead. */
export type Submission =
  | ProviderAnswer<{ reference?: string | undefined }>
  | { failed: ProviderRefusal | ProviderUnknownOutcome };

/** The call that was made: its lease on the connection, the caller's answers it carried, and when. */
export interface Call {
  lease: string;
  answer: InputAnswer | undefined;
  now: number;
}

/** What follows the transfer's submission, from what it answered. */
export function afterSubmission(
  attempting: Deposit,
  submission: Submission,
  call: Call,
  settings: Parameters<typeof transferRefused>[3],
): Next {
  const { lease, answer, now } = call;
  if ('failed' in submission) {
    const error = submission.failed;
    if (answer && error instanceof ProviderRefusal && error.type === SPENT_ANSWERS) {
      // No operation waits for the answers: the answered transfer may have run, its outcome lost
      // with a run that died. Only its own record says whether it moved money: it is read.
      const note = `answers spent (${SPENT_ANSWERS}): reading operation ${answer.id}`;
      return after([{ lease: 'keep', held: lease }], outcomeAwaited(attempting, answer.id, now, note));
    }
    const freed = [{ lease: 'release' as const, held: lease }];
    if (error instanceof ProviderUnknownOutcome) {
      const msg = `The transfer's submission answered nothing readable (${error.reason}): its outcome is unknown`;
      return { kind: 'fail', type: 'TRANSFER_OUTCOME_UNKNOWN', msg, before: freed };
    }
    return after(freed, transferRefused(attempting, error, now, settings));
  }
  switch (submission.status) {
    case 'user_input_required': {
      // The bank asks before anything moved: the attempt goes, whatever becomes of the question
      // (with it the transfer's scratch, of which it is all at this step).
      const dropped = { transfer: undefined };
      return {
        kind: 'ask',
        step: 'transfer',
        question: submission,
        operation: 'transfer',
        also: {},
        lease,
        dropped,
      };
    }
    case 'initialized':
      // The bank holds the connection until the transfer ends: the deposit keeps the lease until then
      // (`reconcile` frees it with the outcome, or it runs out), so the next deposit of the connection
      // waits on the lease instead of hearing the bank's "busy".
      return after([{ lease: 'keep', held: lease }], outcomeAwaited(attempting, submission.id, now));
    case 'done':
      return after(
        [{ lease: 'release', held: lease }],
        transferDone(attempting, submission.response.reference),
      );
  }
}

async function submitTransfer(
  ctx: TransferContext,
  deposit: Deposit,
  credentials: DepositCredentials,
  answer: InputAnswer | undefined,
) {
  const wallet = walletOf(ctx.wallets, deposit);
  const order = { amountMinor: deposit.amountMinor, currency: deposit.currency, senderID: deposit.senderId };
  if (!bankOf(deposit).isCreateBeneficiaryEndpointRequired) {
    return ctx.provider.createAutoflowTransfer(credentials, { ...order, beneficiary: wallet.inline }, answer);
  }
  const receiver = {
    receiverID: deposit.beneficiaryId ?? '',
    ...(deposit.beneficiaryWork?.sendDetails ? { beneficiary: wallet.inline } : {}),
  };
  return ctx.provider.createTransfer(credentials, { ...order, ...receiver }, answer, { sync: false });
}
