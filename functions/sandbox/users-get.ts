import { publicRoute } from '#shared/middleware/sandbox-route';
import { SandboxUserRequest } from '#shared/sandbox/admin-schemas';
import { sandbox } from '#shared/wiring/sandbox';

export const handler = publicRoute(SandboxUserRequest, (body) => sandbox.administration.getUser(body));
