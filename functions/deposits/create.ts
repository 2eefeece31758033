import { CreateDepositRequest } from '#shared/deposits/schemas';
import { startDeposit } from '#shared/deposits/start';
import { depositRoute, idempotencyKeyOf } from '#shared/middleware/deposit-route';
import { startPorts } from '#shared/wiring/start';

const context = await startPorts('create');

export const handler = depositRoute(CreateDepositRequest, ({ body, accessToken, event }) =>
  startDeposit({ ...body, accessToken, idempotencyKey: idempotencyKeyOf(event) }, context),
);
