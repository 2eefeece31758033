import { OperationGetRequest } from '#shared/provider/interface/schemas';
import { getOperation } from '#shared/sandbox/operations/operation-get';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(OperationGetRequest, getOperation);
