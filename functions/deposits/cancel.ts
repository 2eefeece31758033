import { CancelDepositRequest } from '#shared/contracts/deposits-schemas';
import { cancelDeposit } from '#shared/deposits/cancel';
import { depositRoute } from '#shared/middleware/deposit-route';
import { ownerCancelPorts } from '#shared/wiring/cancel';

const context = await ownerCancelPorts('cancel');

export const handler = depositRoute(CancelDepositRequest, ({ body, accessToken }) =>
  cancelDeposit({ depositId: body.operationID, accessToken, userSecret: body.userSecret }, context),
);
