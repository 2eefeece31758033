/**
 * What the reliability defects' unit files share: the bank's metadata with no transfer bounds, a
 * listed beneficiary, a deposit at the transfer.
 */
import type { Deposit } from '#shared/deposits/model/deposit';
import type { AccountsMetadata } from '#shared/provider/interface/schemas';
import { answers, metadata as bankMetadata, banks, type World } from './deposit-world.ts';

/** The bank's metadata, publishing no transfer bounds unless told. */
export const metadata = (overrides: Partial<AccountsMetadata> = {}) =>
  bankMetadata({ transferBounds: [], ...overrides });

export function listedBeneficiary(id: string, name: string, accountNumber: string) {
  return answers.done({
    jobID: 'j',
    success: true,
    status: 'done',
    beneficiaries: [{ id, name, accountNumber, type: 'local', status: 'approved' }],
  });
}

export const atTransfer = (w: World, overrides: Partial<Deposit> = {}) =>
  w.deposit({ step: 'transfer', version: 2, bank: banks.beneficiary, beneficiaryId: 'ben-1', ...overrides });
