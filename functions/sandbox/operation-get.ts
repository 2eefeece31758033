import { getOperation } from '#shared/sandbox/operations/operation-get';
import { OperationGetRequest } from '#shared/spec/schemas';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(OperationGetRequest, getOperation);
