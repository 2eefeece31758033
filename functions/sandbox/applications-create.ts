import { publicRoute } from '#shared/sandbox/routes';
import { sandbox } from '#shared/wiring/sandbox';

export const handler = publicRoute(undefined, () => sandbox.administration.createApplication());
