import { connectionRoute } from '#shared/sandbox/routes';
import { sandbox } from '#shared/sandbox/runtime';
import { OperationGetRequest } from '#shared/spec/schemas';

export const handler = connectionRoute(OperationGetRequest, ({ connection, body }) =>
  sandbox.getOperation(connection, body),
);
