import { DepositError } from '#shared/deposits/errors';
import { depositRoute } from '#shared/deposits/routes';
import { CreateDepositRequest, IdempotencyKey } from '#shared/deposits/schemas';
import { type StartContext, startDeposit } from '#shared/deposits/start';
import { queuesOf } from '#shared/wiring/messaging';
import { credentialVault, wallets } from '#shared/wiring/steps';
import { tableEntities } from '#shared/wiring/table';
import { failPorts } from '#shared/wiring/transitions';

const context: StartContext = {
  ...failPorts(),
  idempotency: tableEntities.idempotency(),
  vault: credentialVault(),
  wallets: wallets(),
  queues: queuesOf('create'),
  claims: tableEntities.claims(),
};

export const handler = depositRoute(CreateDepositRequest, ({ body, accessToken, event }) => {
  const key = IdempotencyKey.safeParse(event.headers['idempotency-key']);
  if (!key.success) {
    throw new DepositError('BAD_REQUEST', 'Invalid JSON request', [
      'Idempotency-Key header: required, 1 to 255 printable characters',
    ]);
  }
  return startDeposit({ ...body, accessToken, idempotencyKey: key.data }, context);
});
