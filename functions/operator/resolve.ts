import { resolveConfig } from '#shared/config';
import { ResolveRequest } from '#shared/contracts/operator-schemas';
import { Answer } from '#shared/middleware/http';
import { operatorRoute } from '#shared/middleware/operator-route';
import { type ResolveContext, resolveDeposit } from '#shared/operator/resolve';
import { transitionPorts } from '#shared/wiring/transitions';

const context: ResolveContext = {
  ...transitionPorts(),
  approvalAbove: resolveConfig().RESOLVE_APPROVAL_ABOVE,
};

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
