/**
 * What the ensure-beneficiary step's unit files share: the bank's answers, a deposit at the step, a
 * claim, the look-up.
 */
import type { BankFacts, BeneficiaryClaim, Deposit } from '#shared/deposits/model/deposit';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { answers, banks, claimKey, ownerKey, question, type World } from './deposit-world.ts';

export const acme = { name: 'Acme Wallet LLC', accountNumber: '0331234567890123456' };

export interface Listed {
  id: string;
  name?: string;
  accountNumber?: string;
  status?: 'approved' | 'pending';
}

/** A listBeneficiaries answer; each entry is the wallet's beneficiary unless it says otherwise. */
export function listed(...beneficiaries: Listed[]) {
  return answers.done({
    jobID: 'j',
    success: true,
    status: 'done',
    beneficiaries: beneficiaries.map((beneficiary) => ({
      name: acme.name,
      accountNumber: acme.accountNumber,
      type: 'local',
      status: 'approved',
      ...beneficiary,
    })),
  });
}

/** A createBeneficiary answer, with the bank's reference when given. */
export function created(reference?: string) {
  return answers.done({ jobID: 'j', success: true, status: 'done', ...(reference ? { reference } : {}) });
}

/** A deposit that resolve-bank sent to ensure-beneficiary. */
export function atStep(w: World, bank: BankFacts = banks.beneficiary, overrides: Partial<Deposit> = {}) {
  return w.deposit({ step: 'ensure-beneficiary', bank, ...overrides });
}

export function claimOf(w: World, overrides: Partial<BeneficiaryClaim>) {
  const claim: BeneficiaryClaim = {
    ownerKey,
    walletAccountId: 'wallet-aed',
    state: 'creating',
    depositId: 'dep_other',
    claimedAt: w.clock.now(),
    ...overrides,
  };
  w.table.claimItems.set(claimKey, claim);
  return claim;
}

export function beneficiaryOf(w: World) {
  return w.wallets.find('wallet-aed')?.beneficiary;
}

/** The caller's OTP answer, as sealed on the deposit and sent back to the bank. */
export const answered = question.map((input) => ({ ...input, answer: '123456' }));

/**
 * A deposit `id` at ensure-beneficiary with the caller's answers to the creation's question (asked
 * as `op-q`, a minute left), holding the creation claim until then.
 */
export async function answering(w: World, bank: BankFacts, id = 'dep_answering') {
  const pendingInput = {
    providerOperationId: 'op-q',
    userInputs: question,
    expiresAt: w.clock.now() + 60_000,
  };
  const deposit = await atStep(w, bank, {
    id,
    pendingInput,
    sealedAnswers: await w.vault.seal('answers', id, answered),
  });
  claimOf(w, { depositId: deposit.id, claimedAt: pendingInput.expiresAt });
  return deposit;
}

/** Runs the step for the deposit's look-up, at the time it is armed for. */
export async function lookUpWhenDue(
  w: World,
  depositId: string,
  ctx: ReturnType<World['contexts']['ensureBeneficiary']>,
) {
  const waiting = w.table.current(depositId);
  w.clock.set(Math.max(w.clock.now(), waiting.beneficiaryWork?.lookupAt ?? 0));
  await ensureBeneficiary(waiting, ctx);
}
