import { DeliveriesRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { deliveriesOf } from '#shared/operator/deliveries';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('operator-deliveries');

export const handler = operatorRoute(DeliveriesRequest, ({ body }) =>
  deliveriesOf({ depositId: body.operationID }, context),
);
