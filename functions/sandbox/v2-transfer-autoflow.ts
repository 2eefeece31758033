import { v2Autoflow } from '#shared/sandbox/dialect-v2/operations';
import { V2AutoflowRequest } from '#shared/sandbox/dialect-v2/requests';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(V2AutoflowRequest, v2Autoflow);
