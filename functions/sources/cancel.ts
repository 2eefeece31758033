import { CancelSourceRequest } from '#shared/contracts/deposits-schemas';
import { cancelSource } from '#shared/deposits/requests/cancel';
import { ownerRoute } from '#shared/middleware/deposit-route';
import { ownerCancelPorts } from '#shared/wiring/cancel';

const context = await ownerCancelPorts('cancelSource');

export const handler = ownerRoute(CancelSourceRequest, ({ body, caller }) =>
  cancelSource({ sourceId: body.sourceID, ...caller, userSecret: body.userSecret }, context),
);
