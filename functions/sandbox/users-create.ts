import { publicRoute } from '#shared/sandbox/routes';
import { sandbox } from '#shared/sandbox/runtime';
import { CreateSandboxUserRequest } from '#shared/spec/schemas';

export const handler = publicRoute(CreateSandboxUserRequest, (body) =>
  sandbox.administration.createUser(body),
);
