/**
 * `/v1/payment/beneficiaries/get` and `/create`: a user's beneficiaries at banks that keep them. A new
 * beneficiary cools down for the bank's period; some banks hide it from the list until then. The IBAN is
 * unique per user (the store enforces it in the same transaction as the operation).
 */
import { ProviderError } from '#shared/spec/errors';
import { periodMs } from '#shared/spec/period';
import type {
  CreateBeneficiaryRequest,
  ListBeneficiariesRequest,
  ListedBeneficiary,
} from '#shared/spec/schemas';
import type { OperationContext } from '../engine.ts';
import { newId } from '../ids.ts';
import { bankOf, transferType, validIban } from '../rules.ts';
import type { BeneficiaryRecord } from '../store.ts';

export function listBeneficiaries(context: OperationContext, request: ListBeneficiariesRequest) {
  const { connection, store } = context;
  const bank = bankOf(connection);
  return context.run({
    kind: 'beneficiaries.list',
    idField: 'jobID',
    request,
    asksForInput: false,
    prepare: async (now) => {
      const all = await store.listBeneficiaries(connection.id);
      const visibleEarly = bank.accountsMetadata.willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod;
      return all
        .filter((beneficiary) => visibleEarly || now >= beneficiary.coolDownUntil)
        .map(
          (beneficiary): ListedBeneficiary => ({
            id: beneficiary.id,
            name: beneficiary.name,
            accountNumber: beneficiary.accountNumber,
            type: transferType(bank, beneficiary.swiftCode),
            status: now >= beneficiary.coolDownUntil ? 'approved' : 'pending',
          }),
        );
    },
    result: (beneficiaries) => ({ beneficiaries }),
  });
}

export function createBeneficiary(context: OperationContext, request: CreateBeneficiaryRequest) {
  const { connection, store } = context;
  const bank = bankOf(connection);
  return context.run({
    kind: 'beneficiaries.create',
    idField: 'jobID',
    request,
    asksForInput: bank.otp.beneficiary,
    prepare: async (now): Promise<BeneficiaryRecord> => {
      if (!bank.accountsMetadata.isCreateBeneficiaryEndpointRequired) {
        throw new ProviderError('BENEFICIARY_NOT_SUPPORTED');
      }
      const iban = validIban(request.iban);
      if (await store.beneficiaryExists(connection.id, iban)) {
        throw new ProviderError('BENEFICIARY_ALREADY_EXISTS');
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
    // The reference of a created beneficiary is its id: the `receiverID` of later transfers.
    result: (beneficiary) => ({ reference: beneficiary.id }),
    commit: (beneficiary, operation, precondition) =>
      store.createBeneficiary(beneficiary, operation, precondition),
  });
}
