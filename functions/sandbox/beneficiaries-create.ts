import { CreateBeneficiaryRequest } from '#shared/provider/interface/schemas';
import { createBeneficiary } from '#shared/sandbox/operations/beneficiaries';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(CreateBeneficiaryRequest, createBeneficiary);
