import { connectionRoute } from '#shared/sandbox/routes';
import { sandbox } from '#shared/sandbox/runtime';
import { ListBeneficiariesRequest } from '#shared/spec/schemas';

export const handler = connectionRoute(ListBeneficiariesRequest, ({ connection, body, latencyMs }) =>
  sandbox.listBeneficiaries(connection, body, latencyMs),
);
