import { publicRoute } from '#shared/sandbox/routes';
import { SetFaultsRequest } from '#shared/spec/schemas';
import { sandbox } from '#shared/wiring/sandbox';

export const handler = publicRoute(SetFaultsRequest, (body) => sandbox.administration.setFaults(body));
