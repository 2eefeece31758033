import { publicRoute } from '#shared/middleware/sandbox-route';
import { listBanks } from '#shared/sandbox/catalog';

export const handler = publicRoute(undefined, () => listBanks());
