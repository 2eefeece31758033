import { v2ListBeneficiaries } from '#shared/sandbox/dialect-v2/operations';
import { V2ListBeneficiariesRequest } from '#shared/sandbox/dialect-v2/requests';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(V2ListBeneficiariesRequest, v2ListBeneficiaries);
