import { cancelDeposit } from '#shared/deposits/cancel';
import { depositRoute } from '#shared/deposits/routes';
import { CancelDepositRequest } from '#shared/deposits/schemas';
import { ownerCancelPorts } from '#shared/wiring/cancel';

const context = await ownerCancelPorts('cancel');

export const handler = depositRoute(CancelDepositRequest, ({ body, accessToken }) =>
  cancelDeposit({ depositId: body.operationID, accessToken, userSecret: body.userSecret }, context),
);
