import { publicRoute } from '#shared/sandbox/routes';

export const handler = publicRoute(undefined, () => ({ status: 200, body: { status: 'ok' } }));
