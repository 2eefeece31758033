import { GetDepositRequest } from '#shared/contracts/deposits-schemas';
import { readDeposit } from '#shared/deposits/requests/read';
import { ownerRoute } from '#shared/middleware/deposit-route';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('deposits-get');

export const handler = ownerRoute(GetDepositRequest, ({ body, caller }) =>
  readDeposit({ depositId: body.operationID, ...caller, userSecret: body.userSecret }, context),
);
