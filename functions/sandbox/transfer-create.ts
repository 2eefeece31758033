import { connectionRoute } from '#shared/sandbox/routes';
import { sandbox } from '#shared/sandbox/runtime';
import { TransferRequest } from '#shared/spec/schemas';

export const handler = connectionRoute(TransferRequest, ({ connection, body, latencyMs }) =>
  sandbox.createTransfer(connection, body, latencyMs),
);
