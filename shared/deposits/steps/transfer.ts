/**
 * transfer, at most once:
 *   1. a deposit woken before its cool-down ends waits again; after it, it moves to transfer;
 *   2. an attempt already recorded means money may have moved: never call again, fail for reconciliation;
 *   3. takes the connection's lease and records the attempt (conditional on the version);
 *   4. calls the provider once: by beneficiary id (with its details on a first transfer), or with
 *      the beneficiary inline for banks that create none;
 *   5. done with the bank's reference; or a question for the caller; or, on a refusal, another try
 *      where the bank says how (busy, details wanted, cool-down) and a failure otherwise; an
 *      unknown outcome fails as TRANSFER_OUTCOME_UNKNOWN.
 */
import {
  type InputAnswer,
  type ProviderAnswer,
  ProviderRefusal,
  ProviderUnknownOutcome,
} from '#shared/provider/client';
import { type ConnectionContext, openCredentials, takeLease } from '../connection.ts';
import { answerFor, type PauseContext, pauseForInput } from '../input.ts';
import { bankOf, type Deposit } from '../model.ts';
import type { BankMemory, BeneficiaryClaims, Provider, StepQueues, Wallets } from '../ports.ts';
import type { SendsOf, WakesOf } from '../reach.ts';
import { advance, fail, requeue, sendStep, waitForConnection } from '../transitions.ts';
import { wakeAt } from '../wake-ups.ts';
import { walletOf } from '../wallets.ts';

export interface TransferContext
  extends ConnectionContext<SendsOf<'transfer'>>,
    PauseContext<WakesOf<'transfer'>> {
  queues: StepQueues<SendsOf<'transfer'>>;
  provider: Pick<Provider, 'createTransfer' | 'createAutoflowTransfer'>;
  /**
   * Marks the beneficiary used once a transfer through it is done (details go with the first only),
   * and forgets one the bank says is gone or wrong, so the next deposit registers it again.
   */
  beneficiaries: Pick<BeneficiaryClaims, 'markUsed' | 'forget'>;
  /** Forgets the connection's remembered bank when a refusal shows its metadata no longer holds. */
  banks: Pick<BankMemory, 'forget'>;
  wallets: Wallets;
}

/**
 * Refusals that contradict the bank's metadata as remembered (`resolve-bank`): whether it takes
 * beneficiaries, and its minimums. The next deposit asks the bank again.
 */
const STALE_METADATA = new Set(['BENEFICIARY_REQUIRED', 'BENEFICIARY_NOT_SUPPORTED', 'AMOUNT_BELOW_MINIMUM']);

/** The shortest wait after a cool-down refusal, whatever instant (or none, or a past one) the bank names. */
const MIN_COOL_DOWN_WAIT_MS = 60_000;

export async function transfer(woken: Deposit, ctx: TransferContext): Promise<void> {
  let deposit = woken;
  if (deposit.step === 'wait-cooldown') {
    const until = deposit.cooldownUntil ?? 0;
    if (until > ctx.clock.now()) return wakeAt(ctx, deposit, 'transfer', until);
    const moved = await advance(ctx, deposit, { step: 'transfer' }, 'cool-down over');
    if (!moved) return;
    deposit = moved;
  }
  if (deposit.transferAttempt) {
    const msg = 'A transfer attempt was interrupted; reconcile with the provider before retrying';
    await fail(ctx, deposit, 'TRANSFER_OUTCOME_UNKNOWN', msg);
    return;
  }
  const answer = await answerFor(ctx, deposit);
  const lease = await takeLease(ctx, deposit);
  if (!lease) return requeue(ctx, deposit, 'transfer');
  const attempting = await advance(ctx, deposit, {
    transferAttempt: { at: ctx.clock.now(), answering: answer !== undefined },
  });
  if (!attempting) return ctx.leases.release(deposit.ownerKey, lease);

  let outcome: ProviderAnswer<{ reference?: string | undefined }>;
  try {
    outcome = await callTransfer(ctx, attempting, answer);
  } catch (error) {
    await ctx.leases.release(deposit.ownerKey, lease);
    return afterRefusal(ctx, attempting, error);
  }
  if (outcome.status === 'user_input_required') {
    const paused = { ...attempting, transferAttempt: undefined };
    await pauseForInput(ctx, paused, 'transfer', outcome, { operation: 'transfer', lease });
    return;
  }
  await ctx.leases.release(deposit.ownerKey, lease);
  if (outcome.status !== 'done' || !outcome.response.reference) {
    await fail(ctx, attempting, 'TRANSFER_OUTCOME_UNKNOWN', `The transfer answered ${outcome.status}`);
    return;
  }
  const reference = outcome.response.reference;
  const done = await advance(
    ctx,
    attempting,
    { status: 'done', step: 'completed', reference, transferAttempt: undefined },
    undefined,
    { type: 'deposit.done', data: { reference } },
  );
  if (done && bankOf(attempting).isCreateBeneficiaryEndpointRequired) {
    await ctx.beneficiaries.markUsed(deposit.ownerKey, deposit.walletAccountId);
  }
}

async function callTransfer(ctx: TransferContext, deposit: Deposit, answer: InputAnswer | undefined) {
  const credentials = await openCredentials(ctx, deposit);
  const wallet = walletOf(ctx.wallets, deposit);
  const order = { amountMinor: deposit.amountMinor, currency: deposit.currency, senderID: deposit.senderId };
  if (!bankOf(deposit).isCreateBeneficiaryEndpointRequired) {
    return ctx.provider.createAutoflowTransfer(credentials, { ...order, beneficiary: wallet.inline }, answer);
  }
  const receiver = {
    receiverID: deposit.beneficiaryId ?? '',
    ...(deposit.sendBeneficiaryDetails ? { beneficiary: wallet.inline } : {}),
  };
  return ctx.provider.createTransfer(credentials, { ...order, ...receiver }, answer);
}

/**
 * After the call threw: an unknown outcome is never retried. A refusal means nothing moved, so the
 * attempt record goes, and some refusals are worth another try.
 */
async function afterRefusal(ctx: TransferContext, deposit: Deposit, error: unknown): Promise<void> {
  if (error instanceof ProviderUnknownOutcome) {
    await fail(
      ctx,
      deposit,
      'TRANSFER_OUTCOME_UNKNOWN',
      `The transfer's outcome is unknown: ${error.reason}`,
    );
    return;
  }
  if (!(error instanceof ProviderRefusal)) throw error;
  // Nothing moved: the attempt record goes, and so do the caller's answers, spent on this call.
  const cleared = { transferAttempt: undefined, pendingInput: undefined, sealedAnswers: undefined };
  switch (error.type) {
    case 'OPERATION_IN_PROGRESS':
      await waitForConnection(ctx, deposit, 'transfer', cleared);
      return;
    case 'BENEFICIARY_DETAILS_REQUIRED': {
      if (deposit.sendBeneficiaryDetails) break;
      const next = await advance(
        ctx,
        deposit,
        { ...cleared, sendBeneficiaryDetails: true },
        'bank asked for details',
      );
      if (next) await sendStep(ctx, next, 'transfer');
      return;
    }
    case 'BENEFICIARY_COOL_DOWN_PERIOD': {
      const refusals = deposit.coolDownRefusals ?? 0;
      if (refusals >= ctx.settings.maxRetries) break;
      const until = Math.max(error.coolDownEndsAt ?? 0, ctx.clock.now() + MIN_COOL_DOWN_WAIT_MS);
      const resumesAt = new Date(until).toISOString();
      const next = await advance(
        ctx,
        deposit,
        { ...cleared, step: 'wait-cooldown', cooldownUntil: until, coolDownRefusals: refusals + 1 },
        `cooling down until ${resumesAt}`,
        { type: 'deposit.cooling_down', data: { resumesAt } },
      );
      if (next) await sendStep(ctx, next, 'wait-cooldown');
      return;
    }
    case 'INVALID_BENEFICIARY_ID':
    case 'BENEFICIARY_DETAILS_MISMATCH': {
      if (deposit.beneficiaryId) {
        await ctx.beneficiaries.forget(deposit.ownerKey, deposit.walletAccountId, deposit.beneficiaryId);
      }
      break;
    }
  }
  if (STALE_METADATA.has(error.type)) await ctx.banks.forget(deposit.ownerKey);
  await fail(ctx, deposit, error.type, error.msg, cleared);
}
