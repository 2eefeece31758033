import { RedriveRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { redriveDeposit } from '#shared/operator/interventions';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('operator-redrive');

export const handler = operatorRoute(RedriveRequest, ({ body }) =>
  redriveDeposit({ depositId: body.operationID }, context),
);
