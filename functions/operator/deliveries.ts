import { systemClock } from '#shared/clock';
import { DeliveriesRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { type DeliveriesContext, deliveriesOf } from '#shared/operator/deliveries';
import { tableEntities } from '#shared/wiring/table';

const context: DeliveriesContext = {
  deposits: tableEntities.deposits(),
  deliveries: tableEntities.deliveries(),
  clock: systemClock,
};

export const handler = operatorRoute(DeliveriesRequest, ({ body }) =>
  deliveriesOf({ depositId: body.operationID }, context),
);
