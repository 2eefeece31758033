/**
 * `/v2/operation/get` (and its alias `/v1/operation/get`): the state of an operation of this connection, as `sync: true` would have
 * answered it (`initialized` while an asynchronous one runs, `USER_INPUT_EXPIRED` after a wait expired).
 * Records keep no copies of lists: a metadata or list operation's result is rebuilt here, from the
 * catalog and from the user's beneficiaries as they stood when the operation ran.
 */
import { ProviderError } from '#shared/provider/interface/errors';
import type { OperationGetRequest } from '#shared/provider/interface/schemas';
import type { HttpAnswer } from '../answer.ts';
import { type IdField, operationStateAt } from '../operation-records.ts';
import type { OperationContext } from '../operation-spec.ts';
import { bankOf } from '../rules.ts';
import type { OperationRecord } from '../store.ts';
import { beneficiariesAsOf } from './beneficiaries.ts';

export async function getOperation(
  context: OperationContext,
  request: OperationGetRequest,
): Promise<HttpAnswer> {
  const idField: IdField = request.operationID === undefined ? 'jobID' : 'operationID';
  const id = request.operationID ?? request.jobID ?? '';
  const operation = await context.store.getOperation(id);
  if (!operation || operation.connectionId !== context.connection.id || !(idField in operation.response)) {
    throw new ProviderError('INVALID_OPERATION_ID', `No operation with ${idField} ${id}`);
  }
  const state = operationStateAt(operation, idField, context.now());
  const read = { ...state, body: { ...state.body, opInfo: opInfoOf(operation, state.body) } };
  if (state.body.status !== 'done') return read;
  return { ...read, body: { ...read.body, ...(await rebuiltResult(context, operation)) } };
}

/** The API path each kind of operation is called at (`opInfo.type`, D-opget), in the v2 dialect. */
const kindPaths: Record<OperationRecord['kind'], string> = {
  metadata: '/metadata/accounts/get',
  'beneficiaries.list': '/payment/beneficiaries/get',
  'beneficiaries.create': '/payment/beneficiaries/create',
  'transfer.create': '/payment/transfer/create',
  'transfer.autoflow': '/payment/transfer/autoflow',
  balance: '/data/balance/get',
};

/**
 * The operation as the `dapi-v2` dialect reads it (D-opget): `opInfo` with its status, its error type
 * when it failed, the path it was called at, its dates, and a transfer's details (its `reference`);
 * a question's inputs beside them (D-opget names none: guess). The path both dialects share answers
 * it in both, beside the spec's fields at the top level.
 */
function opInfoOf(operation: OperationRecord, answer: Record<string, unknown>) {
  const status = answer.status as string;
  const transfer = operation.kind === 'transfer.create' || operation.kind === 'transfer.autoflow';
  const reference = typeof answer.reference === 'string' ? answer.reference : undefined;
  return {
    status,
    ...(status === 'failed' ? { errorType: answer.type } : {}),
    type: kindPaths[operation.kind],
    startDate: new Date(operation.createdAt).toISOString(),
    ...(status === 'done' || status === 'failed'
      ? { endDate: new Date(operation.completesAt).toISOString() }
      : {}),
    transferDetails: transfer && reference ? { reference } : null,
    ...(status === 'user_input_required' ? { userInputs: answer.userInputs } : {}),
  };
}

/** The result fields a done operation's record does not keep. */
async function rebuiltResult(context: OperationContext, operation: OperationRecord) {
  if (operation.kind === 'metadata') return { accountsMetadata: bankOf(context.connection).accountsMetadata };
  if (operation.kind === 'beneficiaries.list') {
    const { store, connection } = context;
    return { beneficiaries: await beneficiariesAsOf(store, connection, operation.createdAt) };
  }
  return {};
}
