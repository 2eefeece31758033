import { systemClock } from '#shared/clock';
import { type CancelContext, cancelSource } from '#shared/deposits/cancel';
import { depositRoute } from '#shared/deposits/routes';
import { CancelSourceRequest } from '#shared/deposits/schemas';
import { queuesOf, scheduleCancels } from '#shared/wiring/messaging';
import { tableEntities } from '#shared/wiring/table';
import { failPorts } from '#shared/wiring/transitions';

const context: CancelContext = {
  ...failPorts(),
  claims: tableEntities.claims(),
  schedules: scheduleCancels(),
  sharedWakes: tableEntities.sharedWakes(),
  queues: queuesOf('cancelSource'),
  clock: systemClock,
};

export const handler = depositRoute(CancelSourceRequest, ({ body, accessToken }) =>
  cancelSource({ sourceId: body.sourceID, accessToken, userSecret: body.userSecret }, context),
);
