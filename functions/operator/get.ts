import { GetRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { getDeposit } from '#shared/operator/read';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('operator-get');

export const handler = operatorRoute(GetRequest, ({ body }) =>
  getDeposit({ depositId: body.operationID }, context),
);
