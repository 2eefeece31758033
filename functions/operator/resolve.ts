import { ResolveRequest } from '#shared/contracts/operator-schemas';
import { operatorRoute } from '#shared/middleware/operator-route';
import { type ResolveContext, resolveDeposit } from '#shared/operator/resolve';
import { transitionPorts } from '#shared/wiring/transitions';

const context: ResolveContext = transitionPorts();

export const handler = operatorRoute(ResolveRequest, ({ body, who }) =>
  resolveDeposit(
    {
      depositId: body.operationID,
      outcome: body.outcome,
      reference: body.reference,
      reason: body.reason,
      who,
    },
    context,
  ),
);
