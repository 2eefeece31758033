import { ResendRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { resendEvent } from '#shared/operator/deliveries';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('operator-resend');

export const handler = operatorRoute(ResendRequest, ({ body, who }) =>
  resendEvent({ depositId: body.operationID, eventId: body.eventId, who }, context),
);
