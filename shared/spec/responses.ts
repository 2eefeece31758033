/**
 * Every response of the interface (../shared/spec/bank-data-and-payments-service.md), as zod schemas:
 * the common envelope, the failed one, and each operation's. The provider client validates responses
 * with them; the sandbox's contract documents them. Requests and resources: `schemas.ts`.
 */
import * as z from 'zod';
import { AccountsMetadata, CardBalance, ListedBeneficiary, OperationStatus, UserInput } from './schemas.ts';

const envelope = {
  success: z.boolean(),
  status: OperationStatus,
  type: z.string().optional(),
  msg: z.string().optional(),
  userInputs: z.array(UserInput).optional(),
  reference: z.string().optional(),
};

export const FailedEnvelope = z.object({
  jobID: z.string().optional(),
  operationID: z.string().optional(),
  success: z.literal(false),
  status: z.literal('failed'),
  type: z.string(),
  msg: z.string(),
  /** Not in the spec: which fields a BAD_REQUEST found wrong. */
  details: z.array(z.string()).optional(),
  /** Not in the spec: the request's id, to quote (also the `x-request-id` header). */
  requestId: z.string().optional(),
});
export type FailedEnvelope = z.infer<typeof FailedEnvelope>;

export const MetadataResponse = z.object({
  jobID: z.string(),
  ...envelope,
  accountsMetadata: AccountsMetadata.optional(),
});
export type MetadataResponse = z.infer<typeof MetadataResponse>;

export const ListBeneficiariesResponse = z.object({
  jobID: z.string(),
  ...envelope,
  beneficiaries: z.array(ListedBeneficiary).optional(),
});
export type ListBeneficiariesResponse = z.infer<typeof ListBeneficiariesResponse>;

export const CreateBeneficiaryResponse = z.object({ jobID: z.string(), ...envelope });
export type CreateBeneficiaryResponse = z.infer<typeof CreateBeneficiaryResponse>;

export const TransferResponse = z.object({ operationID: z.string(), ...envelope });
export type TransferResponse = z.infer<typeof TransferResponse>;

export const BalanceResponse = z.object({
  operationID: z.string(),
  ...envelope,
  balance: CardBalance.optional(),
});
export type BalanceResponse = z.infer<typeof BalanceResponse>;

/** Any operation as read back from `/v1/operation/get`. */
export const OperationResponse = z.object({
  jobID: z.string().optional(),
  operationID: z.string().optional(),
  ...envelope,
  accountsMetadata: AccountsMetadata.optional(),
  beneficiaries: z.array(ListedBeneficiary).optional(),
  balance: CardBalance.optional(),
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
