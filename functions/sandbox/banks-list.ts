import { listBanks } from '#shared/sandbox/catalog';
import { publicRoute } from '#shared/sandbox/routes';

export const handler = publicRoute(undefined, () => listBanks());
