import { publicRoute } from '#shared/middleware/sandbox-route';
import { sandbox } from '#shared/wiring/sandbox';

export const handler = publicRoute(undefined, () => sandbox.administration.createApplication());
