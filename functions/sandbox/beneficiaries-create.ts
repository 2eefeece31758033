import { createBeneficiary } from '#shared/sandbox/operations/beneficiaries';
import { CreateBeneficiaryRequest } from '#shared/spec/schemas';
import { connectionRoute } from '#shared/wiring/sandbox';

export const handler = connectionRoute(CreateBeneficiaryRequest, createBeneficiary);
