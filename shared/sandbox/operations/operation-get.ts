/**
 * `/v1/operation/get`: the state of an operation of this connection, as `sync: true` would have
 * answered it (`initialized` while an asynchronous one runs, `USER_INPUT_EXPIRED` after a wait expired).
 */
import { ProviderError } from '#shared/spec/errors';
import type { OperationGetRequest } from '#shared/spec/schemas';
import type { HttpAnswer } from '../answer.ts';
import type { OperationContext } from '../engine.ts';
import { type IdField, operationStateAt } from '../operation-records.ts';

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
  return operationStateAt(operation, idField, context.now());
}
