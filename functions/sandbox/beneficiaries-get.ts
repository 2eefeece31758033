import { listBeneficiaries } from '#shared/sandbox/operations/beneficiaries';
import { ListBeneficiariesRequest } from '#shared/spec/schemas';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(ListBeneficiariesRequest, listBeneficiaries);
