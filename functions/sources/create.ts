import { CreateSourceRequest } from '#shared/contracts/deposits-schemas';
import { startSource } from '#shared/deposits/requests/start';
import { depositRoute, idempotencyKeyOf } from '#shared/middleware/deposit-route';
import { Answer } from '#shared/middleware/http';
import { annotateDeposit } from '#shared/tracing';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('sources-create');

export const handler = depositRoute(CreateSourceRequest, async ({ body, accessToken, backend, event }) => {
  const { started, view } = await startSource(
    { ...body, accessToken, backend, idempotencyKey: idempotencyKeyOf(event) },
    context,
  );
  annotateDeposit(view.sourceID);
  return new Answer(started ? 202 : 200, view);
});
