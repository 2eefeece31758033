import { ListBeneficiariesRequest } from '#shared/provider/interface/schemas';
import { listBeneficiaries } from '#shared/sandbox/operations/beneficiaries';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(ListBeneficiariesRequest, listBeneficiaries);
