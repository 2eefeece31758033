import { publicRoute } from '#shared/middleware/sandbox-route';
import { SetFaultsRequest } from '#shared/sandbox/admin-schemas';
import { sandbox } from '#shared/wiring/sandbox';

export const handler = publicRoute(SetFaultsRequest, (body) => sandbox.administration.setFaults(body));
