import { publicRoute } from '#shared/sandbox/routes';
import { sandbox } from '#shared/sandbox/runtime';
import { SandboxUserRequest } from '#shared/spec/schemas';

export const handler = publicRoute(SandboxUserRequest, (body) => sandbox.administration.getUser(body));
