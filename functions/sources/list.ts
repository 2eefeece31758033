import { ListSourcesRequest } from '#shared/contracts/deposits-schemas';
import { listSources } from '#shared/deposits/requests/read';
import { ownerRoute } from '#shared/middleware/deposit-route';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('sources-list');

export const handler = ownerRoute(ListSourcesRequest, ({ body, caller }) =>
  listSources({ ...caller, userSecret: body.userSecret, limit: body.limit, cursor: body.cursor }, context),
);
