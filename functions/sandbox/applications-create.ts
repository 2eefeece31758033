import { publicRoute } from '#shared/sandbox/routes';
import { sandbox } from '#shared/sandbox/runtime';

export const handler = publicRoute(undefined, () => sandbox.administration.createApplication());
