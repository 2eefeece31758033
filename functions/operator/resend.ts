import { systemClock } from '#shared/clock';
import { ResendRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { type ResendContext, resendEvent } from '#shared/operator/deliveries';
import { depositEvents } from '#shared/wiring/messaging';
import { tableEntities } from '#shared/wiring/table';

const context: ResendContext = {
  deliveries: tableEntities.deliveries(),
  events: depositEvents(),
  clock: systemClock,
};

export const handler = operatorRoute(ResendRequest, ({ body, who }) =>
  resendEvent({ depositId: body.operationID, eventId: body.eventId, who }, context),
);
