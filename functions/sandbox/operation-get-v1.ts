/**
 * `POST /v1/operation/get`: an alias of `/v2/operation/get` (the path the provider's documentation
 * names), kept for callers that read operations at the sandbox's first path. Same schema, same answer.
 */

import { OperationGetRequest } from '#shared/provider/interface/schemas';
import { getOperation } from '#shared/sandbox/operations/operation-get';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(OperationGetRequest, getOperation);
