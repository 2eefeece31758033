/**
 * What the late-answer files share: a deposit waiting at the transfer with its caller's answers,
 * and the bank's answers to it.
 */
import type { Deposit } from '#shared/deposits/model/deposit';
import { answers, banks, question, type World } from './deposit-world.ts';

export const expired = (operationId?: string) =>
  answers.refusal('USER_INPUT_EXPIRED', 'The operation waited too long for user input', operationId);

/** A deposit waiting at the transfer with the caller's answers to the bank's question `op-q`. */
export async function answeredAtTransfer(w: World, overrides: Partial<Deposit> = {}) {
  const id = overrides.id ?? 'dep_answered';
  const sealedAnswers = await w.vault.seal('answers', id, [{ ...question[0], answer: '123456' }]);
  return w.deposit({
    id,
    step: 'transfer',
    version: 4,
    bank: banks.beneficiary,
    beneficiaryId: 'ben-1',
    pendingInput: {
      providerOperationId: 'op-q',
      operation: 'transfer',
      userInputs: question,
      expiresAt: w.clock.now() + 60_000,
    },
    sealedAnswers,
    ...overrides,
  });
}

/** A deposit whose transfer the bank accepted as `op-7`, `submittedAgo` ms ago, its outcome unread. */
export function atReconcile(w: World, submittedAgo = 1_000, overrides: Partial<Deposit> = {}) {
  return w.deposit({
    step: 'reconcile',
    version: 6,
    bank: banks.beneficiary,
    beneficiaryId: 'ben-1',
    transfer: {
      attempt: { at: w.clock.now() - submittedAgo, answering: false },
      operationId: 'op-7',
      polls: 0,
      pollAt: w.clock.now(),
    },
    ...overrides,
  });
}
