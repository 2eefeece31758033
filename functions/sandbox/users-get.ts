import { publicRoute } from '#shared/middleware/sandbox-route';
import { SandboxUserRequest } from '#shared/spec/sandbox-admin';
import { sandbox } from '#shared/wiring/sandbox';

export const handler = publicRoute(SandboxUserRequest, (body) => sandbox.administration.getUser(body));
