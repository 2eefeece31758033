import { connectionRoute } from '#shared/sandbox/connection-route';
import { getMetadata } from '#shared/sandbox/operations/metadata';
import { MetadataRequest } from '#shared/spec/schemas';

export const handler = connectionRoute(MetadataRequest, getMetadata);
