/**
 * `/v1/payment/beneficiaries/get` and `/create`: a user's beneficiaries at banks that keep them. A new
 * beneficiary cools down for the bank's period; some banks hide it from the list until then. The IBAN is
 * unique per user (the store enforces it in the same transaction as the operation). Each creation call
 * the bank handles is recorded on the user, for `/sandbox/users/get`.
 */
import { isValidIban, normalizeIban } from '#shared/iban';
import { ProviderError } from '#shared/provider/interface/errors';
import { inputLimits } from '#shared/provider/interface/limits';
import { periodMs } from '#shared/provider/interface/period';
import type {
  CreateBeneficiaryRequest,
  ListBeneficiariesRequest,
  ListedBeneficiary,
} from '#shared/provider/interface/schemas';
import { questionsAsked } from '../catalog.ts';
import { newId } from '../ids.ts';
import type { OperationContext } from '../operation-spec.ts';
import { bankOf, transferType, validIban } from '../rules.ts';
import { type BeneficiaryRecord, type ConnectionRecord, type SandboxStore, StoreConflict } from '../store.ts';

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

/**
 * The creation. Every call that reaches it is recorded on the user (`BeneficiaryCreationCall`): created
 * (in the creation's own transaction), asked (the bank's questions come next), or refused with its
 * type. A call stopped before the bank sees it (a fault, a busy connection) or whose answers are
 * refused (expired, spent, wrong) never reaches it, and is not recorded.
 */
export function createBeneficiary(context: OperationContext, request: CreateBeneficiaryRequest) {
  const { connection, store } = context;
  const bank = bankOf(connection);
  const call = (operationId: string, at: number) => ({
    connectionId: connection.id,
    id: newId('bcc'),
    operationId,
    at,
    iban: isValidIban(request.iban) ? normalizeIban(request.iban) : request.iban,
    accountNumber: request.accountNumber,
  });
  return context.run({
    kind: 'beneficiaries.create',
    idField: 'jobID',
    request,
    prepare: async (now, operationId): Promise<BeneficiaryRecord> => {
      let beneficiary: BeneficiaryRecord;
      try {
        beneficiary = await newBeneficiary(store, connection, request, now);
      } catch (error) {
        if (error instanceof ProviderError) {
          await store.recordCreationCall({ ...call(operationId, now), outcome: 'refused', type: error.type });
        }
        throw error;
      }
      // The bank asks before it creates: the call that asked is recorded, the answered one follows.
      if (request.userInputs === undefined && questionsAsked(bank, 'beneficiaries.create').length > 0) {
        await store.recordCreationCall({ ...call(operationId, now), outcome: 'asked' });
      }
      return beneficiary;
    },
    // The reference of a created beneficiary is the bank's receipt number for the creation, never
    // its id: the list gives the id (the `receiverID` of later transfers), as at a bank whose
    // receipts and beneficiaries are numbered apart.
    result: () => ({ reference: newId('rcp') }),
    commit: async (beneficiary, operation, precondition) => {
      const at = beneficiary.createdAt;
      const created = {
        ...call(operation.id, at),
        outcome: 'created' as const,
        beneficiaryId: beneficiary.id,
      };
      try {
        await store.createBeneficiary(beneficiary, operation, precondition, created);
      } catch (error) {
        // Another creation of the same IBAN came first: the engine answers BENEFICIARY_ALREADY_EXISTS.
        if (error instanceof StoreConflict && error.reason === 'duplicate_beneficiary') {
          const type = 'BENEFICIARY_ALREADY_EXISTS';
          await store.recordCreationCall({ ...call(operation.id, at), outcome: 'refused', type });
        }
        throw error;
      }
    },
  });
}

/** The beneficiary the request registers, checked against the bank's rules at `now`. */
async function newBeneficiary(
  store: SandboxStore,
  connection: ConnectionRecord,
  request: CreateBeneficiaryRequest,
  now: number,
): Promise<BeneficiaryRecord> {
  const bank = bankOf(connection);
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
}
