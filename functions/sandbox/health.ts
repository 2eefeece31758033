import { publicRoute } from '#shared/middleware/sandbox-route';

export const handler = publicRoute(undefined, () => ({ status: 200, body: { status: 'ok' } }));
