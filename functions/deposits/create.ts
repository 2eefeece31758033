import { depositRoute } from '#shared/deposits/routes';
import { workflow } from '#shared/deposits/runtime';
import { CreateDepositRequest, IdempotencyKey } from '#shared/deposits/schemas';
import { DepositError } from '#shared/deposits/workflow';

export const handler = depositRoute(CreateDepositRequest, ({ body, accessToken, event }) => {
  const key = IdempotencyKey.safeParse(event.headers['idempotency-key']);
  if (!key.success) {
    throw new DepositError('BAD_REQUEST', 'Invalid JSON request', [
      'Idempotency-Key header: required, 1 to 255 printable characters',
    ]);
  }
  return workflow.start({ ...body, accessToken, idempotencyKey: key.data });
});
