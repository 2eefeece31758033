import { CancelSourceRequest } from '#shared/contracts/deposits-schemas';
import { cancelSource } from '#shared/deposits/requests/cancel';
import { ownerRoute } from '#shared/middleware/deposit-route';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('sources-cancel');

export const handler = ownerRoute(CancelSourceRequest, ({ body, caller }) =>
  cancelSource({ sourceId: body.sourceID, ...caller, userSecret: body.userSecret }, context),
);
