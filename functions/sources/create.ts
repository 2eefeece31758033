import { depositRoute, idempotencyKeyOf } from '#shared/deposits/routes';
import { CreateSourceRequest } from '#shared/deposits/schemas';
import { type StartContext, startSource } from '#shared/deposits/start';
import { queuesOf } from '#shared/wiring/messaging';
import { credentialVault, wallets } from '#shared/wiring/steps';
import { tableEntities } from '#shared/wiring/table';
import { failPorts } from '#shared/wiring/transitions';

const context: StartContext = {
  ...failPorts(),
  idempotency: tableEntities.idempotency(),
  vault: credentialVault(),
  wallets: wallets(),
  queues: queuesOf('createSource'),
  claims: tableEntities.claims(),
};

export const handler = depositRoute(CreateSourceRequest, ({ body, accessToken, event }) =>
  startSource({ ...body, accessToken, idempotencyKey: idempotencyKeyOf(event) }, context),
);
