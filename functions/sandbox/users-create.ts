import { publicRoute } from '#shared/sandbox/routes';
import { CreateSandboxUserRequest } from '#shared/spec/schemas';
import { sandbox } from '#shared/wiring/sandbox';

export const handler = publicRoute(CreateSandboxUserRequest, (body) =>
  sandbox.administration.createUser(body),
);
