import { publicRoute } from '#shared/middleware/sandbox-route';
import { ExchangeTokenRequest } from '#shared/spec/schemas';
import { sandbox } from '#shared/wiring/sandbox';

export const handler = publicRoute(ExchangeTokenRequest, (body) =>
  sandbox.administration.exchangeToken(body),
);
