import { publicRoute } from '#shared/sandbox/routes';
import { sandbox } from '#shared/sandbox/runtime';
import { ExchangeTokenRequest } from '#shared/spec/schemas';

export const handler = publicRoute(ExchangeTokenRequest, (body) =>
  sandbox.administration.exchangeToken(body),
);
