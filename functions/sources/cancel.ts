import { CancelSourceRequest } from '#shared/contracts/deposits-schemas';
import { cancelSource } from '#shared/deposits/cancel';
import { depositRoute } from '#shared/middleware/deposit-route';
import { ownerCancelPorts } from '#shared/wiring/cancel';

const context = await ownerCancelPorts('cancelSource');

export const handler = depositRoute(CancelSourceRequest, ({ body, accessToken }) =>
  cancelSource({ sourceId: body.sourceID, accessToken, userSecret: body.userSecret }, context),
);
