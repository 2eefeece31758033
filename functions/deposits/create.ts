import { depositRoute, idempotencyKeyOf } from '#shared/deposits/routes';
import { CreateDepositRequest } from '#shared/deposits/schemas';
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

export const handler = depositRoute(CreateDepositRequest, ({ body, accessToken, event }) =>
  startDeposit({ ...body, accessToken, idempotencyKey: idempotencyKeyOf(event) }, context),
);
