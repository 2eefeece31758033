/**
 * The sandbox's operations in the `dapi-v2` dialect: each reads its v2 request into the spec's
 * (`requests.ts`), runs the spec's operation (`../operations/`) on a context whose operations are
 * named by `operationID` and held as `sync: true` holds them, and writes the answer in v2
 * (`answers.ts`). The banks and their rules are the spec dialect's: only the edge differs.
 */
import { EnvelopeError } from '#shared/provider/interface/errors';
import type { HttpAnswer } from '../answer.ts';
import type { OperationContext } from '../operation-spec.ts';
import { createBeneficiary, listBeneficiaries, maskedAccount } from '../operations/beneficiaries.ts';
import { getMetadata } from '../operations/metadata.ts';
import { createAutoflowTransfer, createTransfer } from '../operations/transfers.ts';
import { bankOf } from '../rules.ts';
import { v2Answer, v2Statuses } from './answers.ts';
import {
  detailsOf,
  receiverOf,
  type V2AutoflowRequest,
  type V2CreateBeneficiaryRequest,
  type V2ListBeneficiariesRequest,
  type V2MetadataRequest,
  type V2TransferRequest,
} from './requests.ts';

/**
 * The context of a v2 request: every operation named by `operationID` (the id the request resumes
 * with goes to it), and held until the bank is done, as `sync: true` is (no v2 call sends `sync`).
 */
export function v2Context(context: OperationContext): OperationContext {
  return {
    ...context,
    run: (spec) => {
      const { jobID, operationID, ...request } = spec.request;
      const resumed = spec.idField === 'jobID' ? jobID : operationID;
      return context.run({
        ...spec,
        idField: 'operationID',
        request: { ...request, sync: true, ...(resumed === undefined ? {} : { operationID: resumed }) },
      });
    },
  };
}

/** Runs a spec operation in v2: its answer, and its refusals, written in v2. */
async function inV2(
  context: OperationContext,
  operation: (context: OperationContext) => Promise<HttpAnswer>,
  ibans?: () => Promise<Map<string, string>>,
): Promise<HttpAnswer> {
  try {
    const answer = await operation(v2Context(context));
    return v2Answer(
      answer,
      context.now(),
      ibans && Array.isArray(answer.body.beneficiaries) ? await ibans() : undefined,
    );
  } catch (error) {
    if (!(error instanceof EnvelopeError)) throw error;
    const status = v2Statuses[error.type] ?? error.status;
    const operation = error.operation
      ? { idField: 'operationID' as const, id: error.operation.id }
      : undefined;
    throw new EnvelopeError(error.type, status, error.message, error.details, error.headers, operation);
  }
}

/** What resuming a question carries in the spec's request. */
const resuming = (body: { operationID?: string | undefined; userInputs?: unknown }) => ({
  ...(body.operationID === undefined ? {} : { jobID: body.operationID, operationID: body.operationID }),
  ...(body.userInputs === undefined ? {} : { userInputs: body.userInputs as never }),
});

const credentials = (body: { appSecret: string; userSecret: string }) => ({
  appSecret: body.appSecret,
  userSecret: body.userSecret,
});

export function v2GetMetadata(context: OperationContext, body: V2MetadataRequest) {
  return inV2(context, (v2) => getMetadata(v2, { ...credentials(body), sync: true, ...resuming(body) }));
}

/** The IBAN of each of the user's beneficiaries, as the list shows it (masked where the bank masks). */
function ibansOf(context: OperationContext) {
  return async () => {
    const masks = bankOf(context.connection).masksAccounts;
    const all = await context.store.listBeneficiaries(context.connection.id);
    return new Map(
      all.map((entry) => [
        entry.id,
        masks ? maskedAccount({ accountNumber: '', iban: entry.iban }) : entry.iban,
      ]),
    );
  };
}

export function v2ListBeneficiaries(context: OperationContext, body: V2ListBeneficiariesRequest) {
  return inV2(
    context,
    (v2) => listBeneficiaries(v2, { ...credentials(body), sync: true, ...resuming(body) }),
    ibansOf(context),
  );
}

export function v2CreateBeneficiary(context: OperationContext, body: V2CreateBeneficiaryRequest) {
  const { appSecret, userSecret, operationID, userInputs, nickname, phoneNumber, ...beneficiary } = body;
  const { address, ...fields } = beneficiary;
  const request = {
    ...credentials(body),
    sync: true,
    ...fields,
    ...(address ? { address } : {}),
    ...resuming(body),
  };
  return inV2(context, (v2) => createBeneficiary(v2, request));
}

const order = (body: { amount: number; senderID: string }) => ({
  amount: body.amount,
  senderID: body.senderID,
});

export function v2CreateTransfer(context: OperationContext, body: V2TransferRequest) {
  const common = { ...credentials(body), sync: true, ...order(body), ...resuming(body) };
  // Without receiverID: the receiver inline, else the top-level details name it (Java, C#, PHP's README).
  if (body.receiverID === undefined) return inline(context, body, receiverOf(body) ?? detailsOf(body));
  const details = detailsOf(body);
  const request = { ...common, receiverID: body.receiverID, ...(details ? { beneficiary: details } : {}) };
  return inV2(context, (v2) => createTransfer(v2, request));
}

export function v2Autoflow(context: OperationContext, body: V2AutoflowRequest) {
  return inline(context, body, receiverOf(body));
}

function inline(
  context: OperationContext,
  body: V2AutoflowRequest | V2TransferRequest,
  beneficiary: ReturnType<typeof receiverOf>,
) {
  // The schemas require the receiver under one of its forms.
  if (!beneficiary) throw new Error('inline transfer without its receiver');
  const request = { ...credentials(body), sync: true, ...order(body), beneficiary, ...resuming(body) };
  return inV2(context, (v2) => createAutoflowTransfer(v2, request));
}
