import { CancelDepositRequest } from '#shared/contracts/deposits-schemas';
import { cancelDeposit } from '#shared/deposits/requests/cancel';
import { ownerRoute } from '#shared/middleware/deposit-route';
import { annotateDeposit } from '#shared/tracing';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('deposits-cancel');

export const handler = ownerRoute(CancelDepositRequest, ({ body, caller }) => {
  annotateDeposit(body.operationID);
  return cancelDeposit({ depositId: body.operationID, ...caller, userSecret: body.userSecret }, context);
});
