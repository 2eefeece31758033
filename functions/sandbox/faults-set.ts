import { publicRoute } from '#shared/sandbox/routes';
import { sandbox } from '#shared/sandbox/runtime';
import { SetFaultsRequest } from '#shared/spec/schemas';

export const handler = publicRoute(SetFaultsRequest, (body) => sandbox.administration.setFaults(body));
