import { CancelRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { cancelAsOperator } from '#shared/operator/interventions';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('operator-cancel');

export const handler = operatorRoute(CancelRequest, ({ body, who }) =>
  cancelAsOperator({ depositId: body.operationID, reason: body.reason, who }, context),
);
