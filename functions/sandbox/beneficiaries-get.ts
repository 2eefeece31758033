import { connectionRoute } from '#shared/sandbox/connection-route';
import { listBeneficiaries } from '#shared/sandbox/operations/beneficiaries';
import { ListBeneficiariesRequest } from '#shared/spec/schemas';

export const handler = connectionRoute(ListBeneficiariesRequest, listBeneficiaries);
