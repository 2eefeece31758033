/**
 * Every response of the interface (../shared/provider/interface/bank-data-and-payments-service.md), as zod schemas:
 * the common envelope, the failed one, and each operation's. The provider client validates responses
 * with them; the sandbox's contract documents them. Requests and resources: `schemas.ts`.
 */
import * as z from 'zod';
import { AccountsMetadata, CardBalance, ListedBeneficiary, OperationStatus, UserInput } from './schemas.ts';

/**
 * A field the spec returns only in some answers ("returned only when ..."): absent from the others,
 * or `null` there from a bank that writes every field of the envelope (`SANDBOX_SPARSE`). Read as
 * absent either way.
 */
const returnedOnlyWhen = <T extends z.ZodType>(schema: T) => schema.nullish();

const envelope = {
  success: z.boolean(),
  status: OperationStatus,
  type: returnedOnlyWhen(z.string()),
  msg: returnedOnlyWhen(z.string()),
  userInputs: returnedOnlyWhen(z.array(UserInput)),
  reference: returnedOnlyWhen(z.string()),
};

/** The ids: metadata and beneficiary operations return `jobID`, transfers and balance `operationID`. */
const byJob = { jobID: z.string(), operationID: returnedOnlyWhen(z.string()) };
const byOperation = { operationID: z.string(), jobID: returnedOnlyWhen(z.string()) };

export const FailedEnvelope = z.object({
  jobID: returnedOnlyWhen(z.string()),
  operationID: returnedOnlyWhen(z.string()),
  success: z.literal(false),
  status: z.literal('failed'),
  type: z.string(),
  msg: z.string(),
  /** Not in the spec: which fields a BAD_REQUEST found wrong. */
  details: z.array(z.string()).optional(),
  /** Not in the spec: the request's id, to quote (also the `x-request-id` header). */
  requestId: z.string().optional(),
  /** Not in the spec: a cool-down refusal's period in the `dapi-v2` dialect (D-weberr; not read here). */
  coolDownPeriod: z.object({ value: z.number().int(), unit: z.string() }).optional(),
});
export type FailedEnvelope = z.infer<typeof FailedEnvelope>;

export const MetadataResponse = z.object({
  ...byJob,
  ...envelope,
  accountsMetadata: AccountsMetadata.optional(),
});
export type MetadataResponse = z.infer<typeof MetadataResponse>;

export const ListBeneficiariesResponse = z.object({
  ...byJob,
  ...envelope,
  beneficiaries: z.array(ListedBeneficiary).optional(),
});
export type ListBeneficiariesResponse = z.infer<typeof ListBeneficiariesResponse>;

export const CreateBeneficiaryResponse = z.object({ ...byJob, ...envelope });
export type CreateBeneficiaryResponse = z.infer<typeof CreateBeneficiaryResponse>;

export const TransferResponse = z.object({ ...byOperation, ...envelope });
export type TransferResponse = z.infer<typeof TransferResponse>;

export const BalanceResponse = z.object({
  ...byOperation,
  ...envelope,
  /** Returned when done. */
  balance: returnedOnlyWhen(CardBalance),
});
export type BalanceResponse = z.infer<typeof BalanceResponse>;

/** Any operation as read back from `/v2/operation/get` (the sandbox's `/v1/operation/get` alias too). */
export const OperationResponse = z.object({
  jobID: returnedOnlyWhen(z.string()),
  operationID: returnedOnlyWhen(z.string()),
  ...envelope,
  accountsMetadata: AccountsMetadata.optional(),
  beneficiaries: z.array(ListedBeneficiary).optional(),
  balance: returnedOnlyWhen(CardBalance),
  /**
   * Not in the spec: the operation as the `dapi-v2` dialect reads it (D-opget), which the sandbox
   * answers beside the spec's fields on this path the two dialects share. Not read in `spec`.
   */
  opInfo: z
    .looseObject({ status: OperationStatus, type: z.string().optional(), errorType: z.string().optional() })
    .optional(),
});
export type OperationResponse = z.infer<typeof OperationResponse>;

export const ExchangeTokenResponse = z.object({
  success: z.literal(true),
  status: z.literal('done'),
  accessToken: z.string(),
});
export type ExchangeTokenResponse = z.infer<typeof ExchangeTokenResponse>;

/** `GET /sandbox/banks` (the sandbox's catalog; its administration is in `sandbox-admin.ts`). */
export const SandboxBanksResponse = z.object({
  banks: z.array(z.object({ bankId: z.string(), accountsMetadata: AccountsMetadata })),
});
