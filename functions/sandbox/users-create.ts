import { publicRoute } from '#shared/middleware/sandbox-route';
import { CreateSandboxUserRequest } from '#shared/sandbox/admin-schemas';
import { sandbox } from '#shared/wiring/sandbox';

export const handler = publicRoute(CreateSandboxUserRequest, (body) =>
  sandbox.administration.createUser(body),
);
