import { connectionRoute } from '#shared/sandbox/routes';
import { sandbox } from '#shared/sandbox/runtime';
import { AutoflowTransferRequest } from '#shared/spec/schemas';

export const handler = connectionRoute(AutoflowTransferRequest, ({ connection, body, latencyMs }) =>
  sandbox.createAutoflowTransfer(connection, body, latencyMs),
);
