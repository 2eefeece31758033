/**
 * `/v1/payment/beneficiaries/get` and `/create`: a user's beneficiaries at banks that keep them. A new
 * beneficiary cools down for the bank's period; some banks hide it from the list until then. The IBAN is
 * unique per user (the store enforces it in the same transaction as the operation).
 */
import { ProviderError } from '#shared/provider/interface/errors';
import { inputLimits } from '#shared/provider/interface/limits';
import { periodMs } from '#shared/provider/interface/period';
import type {
  CreateBeneficiaryRequest,
  ListBeneficiariesRequest,
  ListedBeneficiary,
} from '#shared/provider/interface/schemas';
import { newId } from '../ids.ts';
import type { OperationContext } from '../operation-spec.ts';
import { bankOf, transferType, validIban } from '../rules.ts';
import type { BeneficiaryRecord, ConnectionRecord, SandboxStore } from '../store.ts';

export function listBeneficiaries(context: OperationContext, request: ListBeneficiariesRequest) {
  const { connection, store } = context;
  return context.run({
    kind: 'beneficiaries.list',
    idField: 'jobID',
    request,
    prepare: (now) => beneficiariesAsOf(store, connection, now),
    result: (beneficiaries) => ({ beneficiaries }),
    // The record keeps no copy of the list: reading the operation back lists them as of its time.
    stored: () => ({}),
  });
}

/**
 * The user's beneficiaries as the list showed them at `at`: those created by then, a bank that hides
 * new ones leaving out those still cooling down, each `pending` until its cool-down ends.
 */
export async function beneficiariesAsOf(
  store: SandboxStore,
  connection: ConnectionRecord,
  at: number,
): Promise<ListedBeneficiary[]> {
  const bank = bankOf(connection);
  const visibleEarly = bank.accountsMetadata.willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod;
  const all = await store.listBeneficiaries(connection.id);
  return all
    .filter((beneficiary) => beneficiary.createdAt <= at)
    .filter((beneficiary) => visibleEarly || at >= beneficiary.coolDownUntil)
    .map(
      (beneficiary): ListedBeneficiary => ({
        id: beneficiary.id,
        name: beneficiary.name,
        accountNumber: bank.masksAccounts ? maskedAccount(beneficiary) : beneficiary.accountNumber,
        type: transferType(bank, beneficiary.swiftCode),
        status: at >= beneficiary.coolDownUntil ? 'approved' : 'pending',
      }),
    );
}

/**
 * What a bank that masks accounts lists: the account number, or the IBAN when it has none, as four
 * asterisks and its last four characters (`****3456`), whatever its length.
 */
export function maskedAccount(beneficiary: Pick<BeneficiaryRecord, 'accountNumber' | 'iban'>): string {
  const shown = beneficiary.accountNumber.replace(/[\s-]/g, '') || beneficiary.iban;
  return `****${shown.slice(-4)}`;
}

export function createBeneficiary(context: OperationContext, request: CreateBeneficiaryRequest) {
  const { connection, store } = context;
  const bank = bankOf(connection);
  return context.run({
    kind: 'beneficiaries.create',
    idField: 'jobID',
    request,
    prepare: async (now): Promise<BeneficiaryRecord> => {
      if (!bank.accountsMetadata.isCreateBeneficiaryEndpointRequired) {
        throw new ProviderError('BENEFICIARY_NOT_SUPPORTED');
      }
      const iban = validIban(request.iban);
      if (await store.beneficiaryExists(connection.id, iban)) {
        throw new ProviderError('BENEFICIARY_ALREADY_EXISTS');
      }
      // One query of the user's partition; the connection is ours, so no creation races this count.
      if ((await store.listBeneficiaries(connection.id)).length >= inputLimits.beneficiariesPerUser) {
        throw new ProviderError('BENEFICIARY_LIMIT_REACHED');
      }
      return {
        connectionId: connection.id,
        id: newId('ben'),
        type: request.type,
        name: request.name,
        iban,
        accountNumber: request.accountNumber,
        swiftCode: request.swiftCode,
        sortCode: request.sortCode,
        bankName: request.bankName,
        country: request.country,
        branchName: request.branchName,
        branchAddress: request.branchAddress,
        address: request.address,
        createdAt: now,
        coolDownUntil: now + periodMs(bank.accountsMetadata.beneficiaryCoolDownPeriod),
      };
    },
    // The reference of a created beneficiary is the bank's receipt number for the creation, never
    // its id: the list gives the id (the `receiverID` of later transfers), as at a bank whose
    // receipts and beneficiaries are numbered apart.
    result: () => ({ reference: newId('rcp') }),
    commit: (beneficiary, operation, precondition) =>
      store.createBeneficiary(beneficiary, operation, precondition),
  });
}
