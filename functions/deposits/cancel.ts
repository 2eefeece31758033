import { systemClock } from '#shared/clock';
import { type CancelContext, cancelDeposit } from '#shared/deposits/cancel';
import { depositRoute } from '#shared/deposits/routes';
import { CancelDepositRequest } from '#shared/deposits/schemas';
import { queuesOf, scheduleCancels } from '#shared/wiring/messaging';
import { tableEntities } from '#shared/wiring/table';
import { failPorts } from '#shared/wiring/transitions';

const context: CancelContext = {
  ...failPorts(),
  claims: tableEntities.claims(),
  schedules: scheduleCancels(),
  sharedWakes: tableEntities.sharedWakes(),
  queues: queuesOf('cancel'),
  clock: systemClock,
};

export const handler = depositRoute(CancelDepositRequest, ({ body, accessToken }) =>
  cancelDeposit({ depositId: body.operationID, accessToken, userSecret: body.userSecret }, context),
);
