import { MetadataRequest } from '#shared/provider/interface/schemas';
import { getMetadata } from '#shared/sandbox/operations/metadata';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(MetadataRequest, getMetadata);
