/**
 * `/v1/payment/transfer/create` (to a beneficiary by `receiverID`, or, without one, to a receiver given
 * inline) and `/v1/payment/transfer/autoflow` (the inline form only, an alias kept for clients that use
 * it). The inline form is for banks without beneficiaries. Both forms take one path: the bank's
 * refusal of the form, the sender's account and the amount in its minor units, the receiver, the
 * bank's minimum and the balance; then one debit, written with the transfer and the operation.
 */
import { normalizeIban } from '#shared/iban';
import { ProviderError } from '#shared/provider/interface/errors';
import type { AutoflowTransferRequest, TransferRequest } from '#shared/provider/interface/schemas';
import { newTransferReference } from '../ids.ts';
import type { OperationContext } from '../operation-spec.ts';
import { bankOf, checkBalance, checkMinimum, minorUnits, transferType, validIban } from '../rules.ts';
import type { TransferRecord } from '../store.ts';

/** Either form: `receiverID` names a beneficiary; without it, `action` and `beneficiary` are the receiver. */
export function createTransfer(context: OperationContext, request: TransferRequest) {
  const { receiverID, action, beneficiary } = request;
  if (receiverID !== undefined) return beneficiaryTransfer(context, { ...request, receiverID });
  // The schema refuses a body without receiverID that lacks either.
  if (action === undefined || beneficiary === undefined) throw new Error('inline form without its fields');
  return createAutoflowTransfer(context, { ...request, action, beneficiary });
}

function beneficiaryTransfer(context: OperationContext, request: TransferRequest & { receiverID: string }) {
  const { connection, store } = context;
  const bank = bankOf(connection);
  const refusal = bank.accountsMetadata.isCreateBeneficiaryEndpointRequired
    ? undefined
    : new ProviderError('BENEFICIARY_NOT_SUPPORTED');
  return transfer(context, 'transfer.create', request, refusal, async (now) => {
    const beneficiary = await store.getBeneficiary(connection.id, request.receiverID);
    if (!beneficiary) throw new ProviderError('INVALID_BENEFICIARY_ID');
    if (now < beneficiary.coolDownUntil) {
      throw new ProviderError(
        'BENEFICIARY_COOL_DOWN_PERIOD',
        `The beneficiary is in its cool-down period until ${new Date(beneficiary.coolDownUntil).toISOString()}`,
      );
    }
    if (request.beneficiary && normalizeIban(request.beneficiary.iban) !== beneficiary.iban) {
      throw new ProviderError('BENEFICIARY_DETAILS_MISMATCH');
    }
    if (bank.detailsOnFirstTransfer && beneficiary.firstTransferAt === undefined && !request.beneficiary) {
      throw new ProviderError('BENEFICIARY_DETAILS_REQUIRED');
    }
    const { id: beneficiaryId, name, iban, swiftCode } = beneficiary;
    return { beneficiaryId, name, iban, swiftCode };
  });
}

/**
 * The inline form, on either path; `action` is kept on the transfer's record (the `dapi-v2` dialect
 * sends none).
 */
export function createAutoflowTransfer(
  context: OperationContext,
  request: Omit<AutoflowTransferRequest, 'action'> & { action?: string | undefined },
) {
  const bank = bankOf(context.connection);
  const refusal = bank.accountsMetadata.isCreateBeneficiaryEndpointRequired
    ? new ProviderError('BENEFICIARY_REQUIRED')
    : undefined;
  return transfer(context, 'transfer.autoflow', request, refusal, async () => {
    const { name, iban, swiftCode } = request.beneficiary;
    return { name, iban: validIban(iban), swiftCode };
  });
}

function transfer(
  context: OperationContext,
  kind: 'transfer.create' | 'transfer.autoflow',
  request: (TransferRequest | Omit<AutoflowTransferRequest, 'action'>) & {
    sync: boolean;
    action?: string | undefined;
  },
  refusal: ProviderError | undefined,
  receiverOf: (now: number) => Promise<TransferRecord['receiver']>,
) {
  const { connection, store } = context;
  const bank = bankOf(connection);
  return context.run({
    kind,
    idField: 'operationID',
    request,
    prepare: async (now): Promise<Omit<TransferRecord, 'operationId'>> => {
      if (refusal) throw refusal;
      const account = await store.getAccount(connection.id, request.senderID);
      if (!account) throw new ProviderError('INVALID_ACCOUNT_ID');
      const amountMinor = minorUnits(request.amount, account.currency, 'amount');
      const receiver = await receiverOf(now);
      const type = transferType(bank, receiver.swiftCode);
      checkMinimum(bank, account.currency, type, amountMinor);
      checkBalance(amountMinor, account.balanceMinor);
      return {
        connectionId: connection.id,
        reference: newTransferReference(),
        senderId: account.id,
        amountMinor,
        currency: account.currency,
        transferType: type,
        ...(request.action === undefined ? {} : { action: request.action }),
        receiver,
        createdAt: now,
      };
    },
    result: (transfer) => ({ reference: transfer.reference }),
    commit: (transfer, operation, precondition) =>
      store.commitTransfer({ ...transfer, operationId: operation.id }, operation, precondition),
  });
}
