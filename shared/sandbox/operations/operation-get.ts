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
  if (state.body.status !== 'done') return state;
  return { ...state, body: { ...state.body, ...(await rebuiltResult(context, operation)) } };
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
