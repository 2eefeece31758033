import { publicRoute } from '#shared/sandbox/routes';
import { SandboxUserRequest } from '#shared/spec/sandbox-admin';
import { sandbox } from '#shared/wiring/sandbox';

export const handler = publicRoute(SandboxUserRequest, (body) => sandbox.administration.getUser(body));
