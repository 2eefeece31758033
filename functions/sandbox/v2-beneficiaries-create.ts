import { v2CreateBeneficiary } from '#shared/sandbox/dialect-v2/operations';
import { V2CreateBeneficiaryRequest } from '#shared/sandbox/dialect-v2/requests';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(V2CreateBeneficiaryRequest, v2CreateBeneficiary);
