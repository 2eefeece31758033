import { systemClock } from '#shared/clock';
import type { CancelContext } from '#shared/deposits/cancel';
import { cancelAsOperator } from '#shared/operator/interventions';
import { operatorRoute } from '#shared/operator/routes';
import { CancelRequest } from '#shared/operator/schemas';
import { queuesOf, scheduleCancels } from '#shared/wiring/messaging';
import { tableEntities } from '#shared/wiring/table';
import { failPorts } from '#shared/wiring/transitions';

const context: CancelContext = {
  ...failPorts(),
  claims: tableEntities.claims(),
  schedules: scheduleCancels(),
  sharedWakes: tableEntities.sharedWakes(),
  queues: queuesOf('operator-cancel'),
  clock: systemClock,
};

export const handler = operatorRoute(CancelRequest, ({ body, who }) =>
  cancelAsOperator({ depositId: body.operationID, reason: body.reason, who }, context),
);
