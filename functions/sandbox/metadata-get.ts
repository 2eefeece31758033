import { connectionRoute } from '#shared/sandbox/routes';
import { sandbox } from '#shared/sandbox/runtime';
import { MetadataRequest } from '#shared/spec/schemas';

export const handler = connectionRoute(MetadataRequest, ({ connection, body, latencyMs }) =>
  sandbox.getMetadata(connection, body, latencyMs),
);
