import { connectionRoute } from '#shared/sandbox/routes';
import { sandbox } from '#shared/sandbox/runtime';
import { CreateBeneficiaryRequest } from '#shared/spec/schemas';

export const handler = connectionRoute(CreateBeneficiaryRequest, ({ connection, body, latencyMs }) =>
  sandbox.createBeneficiary(connection, body, latencyMs),
);
