import { v2GetMetadata } from '#shared/sandbox/dialect-v2/operations';
import { V2MetadataRequest } from '#shared/sandbox/dialect-v2/requests';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(V2MetadataRequest, v2GetMetadata);
