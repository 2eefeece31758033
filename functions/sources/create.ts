import { CreateSourceRequest } from '#shared/deposits/schemas';
import { startSource } from '#shared/deposits/start';
import { depositRoute, idempotencyKeyOf } from '#shared/middleware/deposit-route';
import { startPorts } from '#shared/wiring/start';

const context = await startPorts('createSource');

export const handler = depositRoute(CreateSourceRequest, ({ body, accessToken, event }) =>
  startSource({ ...body, accessToken, idempotencyKey: idempotencyKeyOf(event) }, context),
);
