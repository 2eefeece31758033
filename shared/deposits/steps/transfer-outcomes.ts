/**
 * What the bank said of a transfer, wherever it said it: in the answer of the submission
 * (`transfer`), or in the operation read back later (`reconcile`); each a decision (`Next`) that
 * `apply` makes so:
 *   - `initialized`: the submission is accepted; the operation's id is recorded with that answer, in
 *     one write, and its outcome is read back (`outcomeAwaited`, then `reconcile`);
 *   - `done`: the deposit is done with the bank's reference (`transferDone`);
 *   - a refusal: nothing moved; another try where the bank says how (busy, details wanted, cool-down,
 *     its wait for the caller's answer ran out), a failure otherwise (`transferRefused`).
 * Once the bank said how a transfer it accepted ended, its connection is free again, and so is the
 * lease the deposit kept while the bank carried the transfer out (`transfer`).
 */
import type { ProviderRefusal } from '#shared/provider/client';
import { LATE_ANSWERS } from '../journey/input.ts';
import { retryAfterOf, saysLater } from '../journey/later.ts';
import { after, type Effect, type Next } from '../journey/next.ts';
import { bankOf, type Deposit } from '../model/deposit.ts';
import { beneficiaryWorkWith, tallied, tallyOf, transferWith } from '../model/deposit-work.ts';
import type { DepositSettings } from '../ports/settings.ts';

/**
 * Refusals that contradict the bank's metadata as remembered (`resolve-bank`): whether it takes
 * beneficiaries, and its minimums. The next deposit asks the bank again.
 */
const STALE_METADATA = new Set(['BENEFICIARY_REQUIRED', 'BENEFICIARY_NOT_SUPPORTED', 'AMOUNT_BELOW_MINIMUM']);

/** What a transfer's refusal is decided with: the retries it may take, the least wait after a cool-down. */
type RefusalSettings = Pick<DepositSettings, 'maxRetries' | 'coolDownRetryMs'>;

/** Registrations of the beneficiary again, per deposit, after the bank said ours was gone. */
export const MAX_REGISTRATIONS = 1;

/** What a deposit forgets of its transfer once the bank refused it (nothing moved) or asked again. */
export const noTransfer = { transfer: undefined } satisfies Partial<Deposit>;

/** The delay before the `polls`-th read of the transfer operation: 1 s, doubling, at most `capMs` (15 minutes). */
export function pollDelaySeconds(polls: number, capMs = 900_000): number {
  return Math.min(Math.max(1, Math.floor(capMs / 1000)), 2 ** Math.min(polls, 10));
}

/**
 * The submission was accepted with this operation id: recorded with the answer, in one write (beside
 * the attempt, which stays), and the operation's outcome read after the first delay.
 */
export function outcomeAwaited(
  attempting: Pick<Deposit, 'transfer'>,
  operationId: string,
  now: number,
  note = `transfer submitted as operation ${operationId}`,
): Next {
  const delaySeconds = pollDelaySeconds(0);
  const changes: Partial<Deposit> = {
    step: 'reconcile',
    ...transferWith(attempting, { operationId, polls: 0, pollAt: now + delaySeconds * 1000 }),
    // The caller's answers went with the submission: spent, they do not stay on the record.
    pendingInput: undefined,
    sealedAnswers: undefined,
  };
  return { kind: 'move', changes, note, send: { step: 'reconcile', delaySeconds } };
}

/** The bank moved the money: the deposit is done with its reference; a done without one is not readable. */
export function transferDone(deposit: Deposit, reference: string | undefined): Next {
  const before = connectionFreed(deposit);
  if (!reference) {
    const msg = 'The transfer answered done without a reference';
    return { kind: 'fail', type: 'TRANSFER_OUTCOME_UNKNOWN', msg, before };
  }
  const used: Effect[] = bankOf(deposit).isCreateBeneficiaryEndpointRequired ? [{ claims: 'mark-used' }] : [];
  return {
    kind: 'move',
    changes: { status: 'done', step: 'completed', reference, ...noTransfer },
    event: { type: 'deposit.done', data: { reference } },
    before,
    after: used,
  };
}

/** The bank refused the transfer, so nothing moved: the attempt record goes, and some refusals are worth another try. */
export function transferRefused(
  deposit: Deposit,
  refusal: ProviderRefusal,
  now: number,
  settings: RefusalSettings,
): Next {
  const before = connectionFreed(deposit);
  // The caller's answers go too: spent on this call.
  const cleared = { ...noTransfer, pendingInput: undefined, sealedAnswers: undefined };
  // A busy connection, or a 429: the transfer again later (no sooner than its Retry-After), never a failure.
  if (saysLater(refusal)) {
    const changes = { ...cleared, step: 'transfer' as const };
    return { kind: 'later', step: 'transfer', changes, before, ...retryAfterOf(refusal) };
  }
  const retried = anotherTry(deposit, refusal, now, settings, cleared);
  if (retried) return after(before, retried);
  const forgotten = beneficiaryForgotten(deposit, refusal);
  // Gone at the bank (nothing moved): registered again, once per deposit.
  if (refusal.type === 'INVALID_BENEFICIARY_ID' && tallyOf(deposit, 'registrations') < MAX_REGISTRATIONS)
    return after([...before, ...forgotten], registeredAgain(deposit, cleared));
  const stale: Effect[] = STALE_METADATA.has(refusal.type) ? [{ banks: 'forget' }] : [];
  return {
    kind: 'fail',
    type: refusal.type,
    msg: refusal.msg,
    changes: cleared,
    before: [...before, ...forgotten, ...stale],
  };
}

/** The refusals the bank says how to get past: its wait for the answer ran out, details wanted, a cool-down. */
function anotherTry(
  deposit: Deposit,
  refusal: ProviderRefusal,
  now: number,
  settings: RefusalSettings,
  cleared: Partial<Deposit>,
): Next | undefined {
  switch (refusal.type) {
    // The bank stopped waiting for the caller's answer (it came late, or the question was found late):
    // the operation failed, nothing moved, and the transfer asks again (bounded, as every step does).
    case LATE_ANSWERS:
      return { kind: 'ask-again', step: 'transfer', refusal, changes: { ...cleared, step: 'transfer' } };
    case 'BENEFICIARY_DETAILS_REQUIRED': {
      if (deposit.beneficiaryWork?.sendDetails) return undefined;
      const changes = {
        ...cleared,
        step: 'transfer' as const,
        ...beneficiaryWorkWith(deposit, { sendDetails: true }),
      };
      return { kind: 'move', changes, note: 'bank asked for details', send: { step: 'transfer' } };
    }
    case 'BENEFICIARY_COOL_DOWN_PERIOD':
      return coolingDown(deposit, refusal, now, settings, cleared);
  }
  return undefined;
}

/** The bank names a cool-down: the deposit waits it out (bounded), and the record of it is corrected. */
function coolingDown(
  deposit: Deposit,
  refusal: ProviderRefusal,
  now: number,
  settings: RefusalSettings,
  cleared: Partial<Deposit>,
): Next | undefined {
  if (tallyOf(deposit, 'coolDownRefusals') >= settings.maxRetries) return undefined;
  const until = Math.max(refusal.coolDownEndsAt ?? 0, now + settings.coolDownRetryMs);
  // Our record said the cool-down was over: corrected, so the next deposit does not start at the
  // transfer into the same refusal.
  const before: Effect[] = deposit.beneficiaryId
    ? [{ claims: 'cool-down', beneficiaryId: deposit.beneficiaryId, until }]
    : [];
  const resumesAt = new Date(until).toISOString();
  return {
    kind: 'move',
    changes: {
      ...cleared,
      step: 'wait-cooldown',
      cooldownUntil: until,
      ...tallied(deposit, 'coolDownRefusals'),
    },
    note: `cooling down until ${resumesAt}`,
    event: { type: 'deposit.cooling_down', data: { resumesAt } },
    send: { step: 'wait-cooldown' },
    before,
  };
}

/** A beneficiary the bank says is gone or wrong is forgotten, so the next deposit registers it again. */
function beneficiaryForgotten(deposit: Deposit, refusal: ProviderRefusal): Effect[] {
  const wrong = refusal.type === 'INVALID_BENEFICIARY_ID' || refusal.type === 'BENEFICIARY_DETAILS_MISMATCH';
  return wrong && deposit.beneficiaryId ? [{ claims: 'forget', beneficiaryId: deposit.beneficiaryId }] : [];
}

/** Back to ensure-beneficiary, which creates it anew (or uses one another deposit registered meanwhile). */
function registeredAgain(deposit: Deposit, cleared: Partial<Deposit>): Next {
  const changes: Partial<Deposit> = {
    ...cleared,
    step: 'ensure-beneficiary',
    beneficiaryId: undefined,
    cooldownUntil: undefined,
    beneficiaryWork: undefined,
    ...tallied(deposit, 'registrations'),
  };
  const note = 'the bank says the beneficiary is gone: registering it again';
  return { kind: 'move', changes, note, send: { step: 'ensure-beneficiary' } };
}

/** The lease the deposit kept while the bank carried out the transfer it accepted, freed with its outcome. */
function connectionFreed(deposit: Deposit): Effect[] {
  return deposit.transfer?.operationId ? [{ lease: 'release-own' }] : [];
}
