import { GetSourceRequest } from '#shared/contracts/deposits-schemas';
import { readSource } from '#shared/deposits/requests/read';
import { ownerRoute } from '#shared/middleware/deposit-route';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('sources-get');

export const handler = ownerRoute(GetSourceRequest, ({ body, caller }) =>
  readSource({ sourceId: body.sourceID, ...caller, userSecret: body.userSecret }, context),
);
