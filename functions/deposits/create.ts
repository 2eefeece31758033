import { CreateDepositRequest } from '#shared/contracts/deposits-schemas';
import { startDeposit } from '#shared/deposits/requests/start';
import { depositRoute, idempotencyKeyOf } from '#shared/middleware/deposit-route';
import { Answer } from '#shared/middleware/http';
import { annotateDeposit } from '#shared/tracing';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('deposits-create');

export const handler = depositRoute(CreateDepositRequest, async ({ body, accessToken, backend, event }) => {
  const { started, view } = await startDeposit(
    { ...body, accessToken, backend, idempotencyKey: idempotencyKeyOf(event) },
    context,
  );
  annotateDeposit(view.operationID);
  // Started now: accepted, it runs on; the same key again: the deposit as it stands.
  return new Answer(started ? 202 : 200, view);
});
