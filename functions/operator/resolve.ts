import { ResolveRequest } from '#shared/contracts/operator-schemas';
import { Answer } from '#shared/middleware/http';
import { operatorRoute } from '#shared/middleware/operator-route';
import { resolveDeposit } from '#shared/operator/resolve';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('operator-resolve');

export const handler = operatorRoute(ResolveRequest, async ({ body, who }) => {
  const view = await resolveDeposit(
    {
      depositId: body.operationID,
      outcome: body.outcome,
      reference: body.reference,
      reason: body.reason,
      who,
    },
    context,
  );
  // A `done` above the approval threshold is only proposed: accepted, it waits for a second operator.
  return new Answer(view.pendingResolution ? 202 : 200, view);
});
