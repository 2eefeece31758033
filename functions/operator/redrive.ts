import { systemClock } from '#shared/clock';
import { RedriveRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { type RedriveContext, redriveDeposit } from '#shared/operator/interventions';
import { queuesOf } from '#shared/wiring/messaging';
import { tableEntities } from '#shared/wiring/table';

const context: RedriveContext = {
  deposits: tableEntities.deposits(),
  queues: queuesOf('operator-redrive'),
  clock: systemClock,
};

export const handler = operatorRoute(RedriveRequest, ({ body }) =>
  redriveDeposit({ depositId: body.operationID }, context),
);
