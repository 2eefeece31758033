import { publicRoute } from '#shared/middleware/sandbox-route';
import { ExchangeTokenRequest } from '#shared/provider/interface/schemas';
import { sandbox } from '#shared/wiring/sandbox';

export const handler = publicRoute(ExchangeTokenRequest, (body) =>
  sandbox.administration.exchangeToken(body),
);
