import { CancelDepositRequest } from '#shared/contracts/deposits-schemas';
import { cancelDeposit } from '#shared/deposits/requests/cancel';
import { ownerRoute } from '#shared/middleware/deposit-route';
import { annotateDeposit } from '#shared/tracing';
import { ownerCancelPorts } from '#shared/wiring/cancel';

const context = await ownerCancelPorts('cancel');

export const handler = ownerRoute(CancelDepositRequest, ({ body, caller }) => {
  annotateDeposit(body.operationID);
  return cancelDeposit({ depositId: body.operationID, ...caller, userSecret: body.userSecret }, context);
});
