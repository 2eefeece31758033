import { publicRoute } from '#shared/middleware/sandbox-route';
import { ExchangeTokenRequest } from '#shared/provider/interface/schemas';
import { v2Token } from '#shared/sandbox/dialect-v2/answers';
import { newId } from '#shared/sandbox/ids';
import { sandbox } from '#shared/wiring/sandbox';

/** `POST /v2/auth/ExchangeToken`: the spec's exchange, answered as the v2 dialect's SDKs declare it. */
export const handler = publicRoute(ExchangeTokenRequest, async (body) =>
  v2Token(await sandbox.administration.exchangeToken(body), body.connectionID, {
    tokenID: newId('tok'),
    operationID: newId('op'),
  }),
);
