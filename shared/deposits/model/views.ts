/**
 * What the caller sees of a deposit: its view by status, its failure as told, its business fields,
 * and the bank's question as it is asked. No AWS here.
 */
import { fromMinorUnits } from '#shared/money';
import type { UserInput } from '#shared/provider/interface/schemas';
import type { AskedInput, Deposit } from './deposit.ts';
import { failureTypeOf, ownerMessage } from './failures.ts';

/** The question as its caller sees it: the spec's UserInput, its `answer` for the caller to fill. */
export function askedOf(inputs: readonly AskedInput[]): UserInput[] {
  return inputs.map(({ id, index, query }) => ({ id, index, query, answer: '' }));
}

/**
 * The caller-facing view of a deposit: what each status carries, and only that (the typed client's
 * `Deposit` is a union on `status`): `resumesAt` while it cools down, the question while it waits
 * for its caller, the `reference` once done, the failure's type and message once failed.
 */
export function depositView(deposit: Deposit, now: number) {
  return {
    operationID: deposit.id,
    success: deposit.status !== 'failed',
    status: deposit.status,
    step: deposit.step,
    amount: fromMinorUnits(deposit.amountMinor, deposit.currency),
    currency: deposit.currency,
    walletAccountID: deposit.walletAccountId,
    senderID: deposit.senderId,
    ...businessView(deposit),
    ...(deposit.status === 'initialized' &&
    deposit.step === 'wait-cooldown' &&
    deposit.cooldownUntil &&
    deposit.cooldownUntil > now
      ? { resumesAt: new Date(deposit.cooldownUntil).toISOString() }
      : {}),
    ...(deposit.status === 'user_input_required'
      ? {
          userInputs: askedOf(deposit.pendingInput?.userInputs ?? []),
          inputExpiresAt: new Date(deposit.pendingInput?.expiresAt ?? deposit.updatedAt).toISOString(),
        }
      : {}),
    ...(deposit.status === 'done' && deposit.reference ? { reference: deposit.reference } : {}),
    ...(deposit.status === 'failed' ? failureView(deposit.failure?.type ?? 'STEP_FAILED') : {}),
    history: deposit.history.map((entry) => ({ ...entry, at: new Date(entry.at).toISOString() })),
    createdAt: new Date(deposit.createdAt).toISOString(),
    updatedAt: new Date(deposit.updatedAt).toISOString(),
  };
}

/**
 * A failure as its owner is told it: a type of the closed set (`failureTypeOf`: a deposit recorded
 * before the set was closed may hold another) and its fixed message.
 */
export function failureView(type: string) {
  const told = failureTypeOf(type);
  return { type: told, msg: ownerMessage(told) };
}

/** The caller's business fields, as every view and event shows them (none it did not give). */
export function businessView(deposit: Pick<Deposit, 'clientReference' | 'metadata'>) {
  return {
    ...(deposit.clientReference === undefined ? {} : { clientReference: deposit.clientReference }),
    ...(deposit.metadata === undefined ? {} : { metadata: { ...deposit.metadata } }),
  };
}
