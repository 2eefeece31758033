import { connectionRoute } from '#shared/sandbox/routes';
import { sandbox } from '#shared/sandbox/runtime';
import { BalanceRequest } from '#shared/spec/schemas';

export const handler = connectionRoute(BalanceRequest, ({ connection, body, latencyMs }) =>
  sandbox.getCardBalance(connection, body, latencyMs),
);
