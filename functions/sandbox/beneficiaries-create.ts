import { connectionRoute } from '#shared/sandbox/connection-route';
import { createBeneficiary } from '#shared/sandbox/operations/beneficiaries';
import { CreateBeneficiaryRequest } from '#shared/spec/schemas';

export const handler = connectionRoute(CreateBeneficiaryRequest, createBeneficiary);
