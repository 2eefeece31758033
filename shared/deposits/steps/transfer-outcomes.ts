/**
 * What the bank said of a transfer, wherever it said it: in the answer of the submission
 * (`transfer`), or in the operation read back later (`reconcile`):
 *   - `initialized`: the submission is accepted; the operation's id is recorded with that answer, in
 *     one write, and its outcome is read back (`awaitOutcome`, then `reconcile`);
 *   - `done`: the deposit is done with the bank's reference (`completeTransfer`);
 *   - a refusal: nothing moved; another try where the bank says how (busy, details wanted, cool-down,
 *     its wait for the caller's answer ran out), a failure otherwise (`afterTransferRefusal`).
 */
import type { ProviderRefusal } from '#shared/provider/client';
import { askAgain, LATE_ANSWERS } from '../input.ts';
import { saysLater, waitForConnection } from '../later.ts';
import { bankOf, type Deposit } from '../model.ts';
import type { BankMemory, BeneficiaryClaims, StepQueues } from '../ports.ts';
import { advance, type FailContext, fail, ownLease, sendStep } from '../transitions.ts';

/** What a step that hears a transfer's outcome has besides failing a deposit. */
export interface OutcomePorts {
  queues: StepQueues<'transfer' | 'wait-cooldown' | 'reconcile' | 'ensure-beneficiary'>;
  /**
   * Marks the beneficiary used once a transfer through it is done (details go with the first only),
   * and forgets one the bank says is gone or wrong, so the next deposit registers it again.
   */
  claims: Pick<BeneficiaryClaims, 'markUsed' | 'coolDown' | 'forget'>;
  /** Forgets the connection's remembered bank when a refusal shows its metadata no longer holds. */
  banks: Pick<BankMemory, 'forget'>;
}

export type OutcomeContext = FailContext & OutcomePorts;

/**
 * Refusals that contradict the bank's metadata as remembered (`resolve-bank`): whether it takes
 * beneficiaries, and its minimums. The next deposit asks the bank again.
 */
const STALE_METADATA = new Set(['BENEFICIARY_REQUIRED', 'BENEFICIARY_NOT_SUPPORTED', 'AMOUNT_BELOW_MINIMUM']);

/** The shortest wait after a cool-down refusal, whatever instant (or none, or a past one) the bank names. */
const MIN_COOL_DOWN_WAIT_MS = 60_000;

/** What a deposit forgets of its transfer once the bank refused it (nothing moved) or asked again. */
export const noTransfer = {
  transferAttempt: undefined,
  transferOperationId: undefined,
  polls: undefined,
  pollAt: undefined,
} satisfies Partial<Deposit>;

/** The delay before the `polls`-th read of the transfer operation: 1 s, doubling, at most `capMs` (15 minutes). */
export function pollDelaySeconds(polls: number, capMs = 900_000): number {
  return Math.min(Math.max(1, Math.floor(capMs / 1000)), 2 ** Math.min(polls, 10));
}

/**
 * The submission was accepted with this operation id: recorded with the answer, in one write, and
 * the operation's outcome read after the first delay.
 */
export async function awaitOutcome(
  ctx: OutcomeContext,
  deposit: Deposit,
  operationId: string,
  note = `transfer submitted as operation ${operationId}`,
) {
  const delay = pollDelaySeconds(0);
  const next = await advance(
    ctx,
    deposit,
    {
      step: 'reconcile',
      transferOperationId: operationId,
      polls: 0,
      pollAt: ctx.clock.now() + delay * 1000,
      // The caller's answers went with the submission: spent, they do not stay on the record.
      pendingInput: undefined,
      sealedAnswers: undefined,
    },
    note,
  );
  if (next) await sendStep(ctx, next, 'reconcile', delay);
}

/** The bank moved the money: the deposit is done with its reference; a done without one is not readable. */
export async function completeTransfer(ctx: OutcomeContext, deposit: Deposit, reference: string | undefined) {
  await freeConnection(ctx, deposit);
  if (!reference) {
    await fail(ctx, deposit, 'TRANSFER_OUTCOME_UNKNOWN', 'The transfer answered done without a reference');
    return;
  }
  const done = await advance(
    ctx,
    deposit,
    { status: 'done', step: 'completed', reference, ...noTransfer },
    undefined,
    { type: 'deposit.done', data: { reference } },
  );
  if (done && bankOf(deposit).isCreateBeneficiaryEndpointRequired) {
    await ctx.claims.markUsed(deposit.ownerKey, deposit.walletAccountId);
  }
}

/** The bank refused the transfer, so nothing moved: the attempt record goes, and some refusals are worth another try. */
export async function afterTransferRefusal(
  ctx: OutcomeContext,
  deposit: Deposit,
  refusal: ProviderRefusal,
): Promise<void> {
  await freeConnection(ctx, deposit);
  // The caller's answers go too: spent on this call.
  const cleared = { ...noTransfer, pendingInput: undefined, sealedAnswers: undefined };
  // A busy connection, or a 429: the transfer again later (no sooner than its Retry-After), never a failure.
  if (saysLater(refusal)) {
    const changes = { ...cleared, step: 'transfer' as const };
    await waitForConnection(ctx, deposit, 'transfer', changes, refusal.retryAfterMs);
    return;
  }
  switch (refusal.type) {
    // The bank stopped waiting for the caller's answer (it came late, or the question was found late):
    // the operation failed, nothing moved, and the transfer asks again (bounded, as every step does).
    case LATE_ANSWERS:
      await askAgain(ctx, deposit, 'transfer', refusal, { ...cleared, step: 'transfer' });
      return;
    case 'BENEFICIARY_DETAILS_REQUIRED': {
      if (deposit.sendBeneficiaryDetails) break;
      const changes = { ...cleared, step: 'transfer' as const, sendBeneficiaryDetails: true };
      const next = await advance(ctx, deposit, changes, 'bank asked for details');
      if (next) await sendStep(ctx, next, 'transfer');
      return;
    }
    case 'BENEFICIARY_COOL_DOWN_PERIOD': {
      const refusals = deposit.coolDownRefusals ?? 0;
      if (refusals >= ctx.settings.maxRetries) break;
      const until = Math.max(refusal.coolDownEndsAt ?? 0, ctx.clock.now() + MIN_COOL_DOWN_WAIT_MS);
      // Our record said the cool-down was over: corrected, so the next deposit does not start at the
      // transfer into the same refusal.
      if (deposit.beneficiaryId) {
        await ctx.claims.coolDown(deposit.ownerKey, deposit.walletAccountId, deposit.beneficiaryId, until);
      }
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
        await ctx.claims.forget(deposit.ownerKey, deposit.walletAccountId, deposit.beneficiaryId);
      }
      // Gone at the bank (nothing moved): registered again, once per deposit.
      if (refusal.type === 'INVALID_BENEFICIARY_ID' && (deposit.registrations ?? 0) < MAX_REGISTRATIONS) {
        return registerAgain(ctx, deposit, cleared);
      }
      break;
    }
  }
  if (STALE_METADATA.has(refusal.type)) await ctx.banks.forget(deposit);
  await fail(ctx, deposit, refusal.type, refusal.msg, cleared);
}

/** Registrations of the beneficiary again, per deposit, after the bank said ours was gone. */
export const MAX_REGISTRATIONS = 1;

/** Back to ensure-beneficiary, which creates it anew (or uses one another deposit registered meanwhile). */
async function registerAgain(ctx: OutcomeContext, deposit: Deposit, cleared: Partial<Deposit>) {
  const changes: Partial<Deposit> = {
    ...cleared,
    step: 'ensure-beneficiary',
    beneficiaryId: undefined,
    cooldownUntil: undefined,
    sendBeneficiaryDetails: undefined,
    beneficiaryLookupAt: undefined,
    sleepsUntil: undefined,
    claimWaits: undefined,
    registrations: (deposit.registrations ?? 0) + 1,
  };
  const note = 'the bank says the beneficiary is gone: registering it again';
  const next = await advance(ctx, deposit, changes, note);
  if (next) await sendStep(ctx, next, 'ensure-beneficiary');
}

/**
 * The bank said how the transfer it accepted ended: its connection is free again, and so is the
 * lease the deposit kept while the bank carried the transfer out (`transfer`).
 */
function freeConnection(ctx: OutcomeContext, deposit: Deposit) {
  if (!deposit.transferOperationId) return undefined;
  return ctx.leases.release(deposit.ownerKey, ownLease(deposit));
}
