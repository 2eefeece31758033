import { connectionRoute } from '#shared/sandbox/connection-route';
import { getOperation } from '#shared/sandbox/operations/operation-get';
import { OperationGetRequest } from '#shared/spec/schemas';

export const handler = connectionRoute(OperationGetRequest, getOperation);
