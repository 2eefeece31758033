import { getMetadata } from '#shared/sandbox/operations/metadata';
import { MetadataRequest } from '#shared/spec/schemas';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(MetadataRequest, getMetadata);
