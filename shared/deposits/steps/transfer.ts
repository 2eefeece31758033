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
 *   5. accepted (`initialized`): the deposit keeps the connection's lease while the bank carries the
 *      transfer out, the operation's id is recorded with that answer and `reconcile` reads its outcome; done: done with the bank's reference; a question for the caller; a refusal
 *      (`transfer-outcomes.ts`); an unknown outcome of the submission itself fails as
 *      TRANSFER_OUTCOME_UNKNOWN, for an operator to resolve; answers refused as spent (no operation
 *      waits for them: the answered transfer may have run) read the answered operation's record.
 */
import {
  type InputAnswer,
  type ProviderAnswer,
  ProviderRefusal,
  ProviderUnknownOutcome,
} from '#shared/provider/client';
import { keepLease, leaseBusy, openCredentials, takeLease } from '../connection.ts';
import { answerFor, pauseForInput, SPENT_ANSWERS } from '../input.ts';
import { bankOf, type Deposit, isSource } from '../model.ts';
import type { DepositCredentials } from '../ports.ts';
import type { StepContext } from '../step-context.ts';
import { advance, fail } from '../transitions.ts';
import { wakeAt, wakeFollowers } from '../wake-ups.ts';
import { walletOf } from '../wallets.ts';
import { afterTransferRefusal, awaitOutcome, completeTransfer } from './transfer-outcomes.ts';

/** What transfer touches: its line in `reach.ts`. */
export type TransferContext = StepContext<'transfer'>;

export async function transfer(woken: Deposit, ctx: TransferContext): Promise<void> {
  let deposit = woken;
  if (deposit.step === 'wait-cooldown') {
    const until = deposit.cooldownUntil ?? 0;
    if (until > ctx.clock.now()) return wakeAt(ctx, deposit, 'transfer', until);
    const moved = await advance(ctx, deposit, { step: 'transfer' }, 'cool-down over');
    if (!moved) return;
    deposit = moved;
  }
  if (isSource(deposit)) return sourceReady(ctx, deposit);
  if (deposit.transferAttempt) {
    // A copy of the message while the attempt may still be in flight (SQS delivers at least once,
    // a copy may come while the first run waits for the bank): the attempt is that run's to finish.
    // Nothing is written, so its outcome lands; if it died instead, the sweeper re-drives the
    // deposit past its check time, and then the attempt on record is an interrupted one.
    if (deposit.transferAttempt.at + ctx.settings.stallAfterMs > ctx.clock.now()) return;
    const msg = 'A transfer attempt was interrupted; reconcile with the provider before retrying';
    await fail(ctx, deposit, 'TRANSFER_OUTCOME_UNKNOWN', msg);
    return;
  }
  // Everything the call needs is opened before the attempt is recorded: a failure to open them is
  // a step that failed, not a transfer whose outcome is unknown.
  const answer = await answerFor(ctx, deposit);
  const credentials = await openCredentials(ctx, deposit);
  const lease = await takeLease(ctx, deposit);
  if (lease === 'busy') {
    await leaseBusy(ctx, deposit, 'transfer');
    return;
  }
  const attempting = await advance(ctx, deposit, {
    transferAttempt: { at: ctx.clock.now(), answering: answer !== undefined },
  });
  if (!attempting) return ctx.leases.release(deposit.ownerKey, lease);

  let outcome: ProviderAnswer<{ reference?: string | undefined }>;
  try {
    outcome = await submitTransfer(ctx, attempting, credentials, answer);
  } catch (error) {
    if (answer && error instanceof ProviderRefusal && error.type === SPENT_ANSWERS) {
      // No operation waits for the answers: the answered transfer may have run, its outcome lost
      // with a run that died. Only its own record says whether it moved money: it is read.
      await keepLease(ctx, attempting, lease);
      return awaitOutcome(
        ctx,
        attempting,
        answer.id,
        `answers spent (${SPENT_ANSWERS}): reading operation ${answer.id}`,
      );
    }
    await ctx.leases.release(deposit.ownerKey, lease);
    if (error instanceof ProviderUnknownOutcome) {
      const msg = `The transfer's submission answered nothing readable (${error.reason}): its outcome is unknown`;
      await fail(ctx, attempting, 'TRANSFER_OUTCOME_UNKNOWN', msg);
      return;
    }
    if (!(error instanceof ProviderRefusal)) throw error;
    return afterTransferRefusal(ctx, attempting, error);
  }
  if (outcome.status === 'user_input_required') {
    const paused = { ...attempting, transferAttempt: undefined };
    await pauseForInput(ctx, paused, 'transfer', outcome, { operation: 'transfer', lease });
    return;
  }
  if (outcome.status === 'initialized') {
    // The bank holds the connection until the transfer ends: the deposit keeps the lease until then
    // (`reconcile` frees it with the outcome, or it runs out), so the next deposit of the connection
    // waits on the lease instead of hearing the bank's "busy".
    await keepLease(ctx, attempting, lease);
    return awaitOutcome(ctx, attempting, outcome.id);
  }
  await ctx.leases.release(deposit.ownerKey, lease);
  return completeTransfer(ctx, attempting, outcome.response.reference);
}

/**
 * A payment source stops before the transfer: it is ready (its caller hears), and the deposits and
 * sources that followed its wake-up are woken, each at the step and version it waits at.
 */
async function sourceReady(ctx: TransferContext, source: Deposit) {
  const note = 'ready: deposits into this wallet account go straight to the transfer';
  const ready = await advance(ctx, source, { status: 'done', step: 'completed' }, note, {
    type: 'deposit.done',
    data: {},
  });
  if (ready) await wakeFollowers(ctx, source);
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
    ...(deposit.sendBeneficiaryDetails ? { beneficiary: wallet.inline } : {}),
  };
  return ctx.provider.createTransfer(credentials, { ...order, ...receiver }, answer, { sync: false });
}
