import { depositRoute } from '#shared/deposits/routes';
import { workflow } from '#shared/deposits/runtime';
import { GetDepositRequest } from '#shared/deposits/schemas';

export const handler = depositRoute(GetDepositRequest, ({ body, accessToken }) =>
  workflow.read(body.operationID, accessToken, body.userSecret),
);
