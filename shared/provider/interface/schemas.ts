/**
 * Every request and resource of the interface (../shared/provider/interface/bank-data-and-payments-service.md),
 * as zod schemas. The sandbox validates requests with them (responses: `responses.ts`). Types are inferred, never written twice. Unknown request fields are ignored (stripped).
 */
import * as z from 'zod';
import { inputLimits as limits } from './limits.ts';

// ---------------------------------------------------------------------------------------------
// Shared pieces

export const OperationStatus = z.enum(['initialized', 'user_input_required', 'done', 'failed']);
export type OperationStatus = z.infer<typeof OperationStatus>;

export const UserInput = z.object({
  id: z.string().min(1),
  index: z.number().int().nonnegative(),
  query: z.string(),
  answer: z.string(),
});
export type UserInput = z.infer<typeof UserInput>;

/** A UserInput as a caller sends it back: every field bounded (`inputLimits`). */
export const UserInputAnswer = z.object({
  id: z.string().min(1).max(limits.inputId),
  index: z.number().int().nonnegative().max(limits.userInputs),
  query: z.string().max(limits.query),
  answer: z.string().max(limits.answer),
});

/** The answers a request may carry: at most `inputLimits.userInputs`. */
export const UserInputAnswers = z.array(UserInputAnswer).max(limits.userInputs);

export const Currency = z.object({ code: z.string().length(3), name: z.string() });
export type Currency = z.infer<typeof Currency>;

export const Address = z.object({ line1: z.string(), line2: z.string(), line3: z.string() });
export type Address = z.infer<typeof Address>;

/** `same` when sender and receiver are at the same bank, `local` otherwise. */
export const TransferType = z.enum(['same', 'local']);
export type TransferType = z.infer<typeof TransferType>;

export const TransferBound = z.object({ minimum: z.number(), currency: Currency, type: z.string() });
export type TransferBound = z.infer<typeof TransferBound>;

export const Period = z.object({ value: z.number().nonnegative(), unit: z.string() });
export type Period = z.infer<typeof Period>;

export const AccountsMetadata = z.object({
  swiftCode: z.string(),
  sortCode: z.string().nullable(),
  bankName: z.string(),
  branchName: z.string(),
  branchAddress: z.string(),
  address: Address,
  transferBounds: z.array(TransferBound),
  beneficiaryCoolDownPeriod: Period,
  isCreateBeneficiaryEndpointRequired: z.boolean(),
  willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod: z.boolean(),
  country: z.object({ code: z.string(), name: z.string() }),
  transactionRange: z.object({ unit: z.string(), value: z.number() }),
});
export type AccountsMetadata = z.infer<typeof AccountsMetadata>;

export const ListedBeneficiary = z.object({
  id: z.string(),
  name: z.string(),
  accountNumber: z.string(),
  type: z.string(),
  status: z.string(),
});
export type ListedBeneficiary = z.infer<typeof ListedBeneficiary>;

/** A required string of at most `max` characters, trimmed. */
export const boundedText = (max: number) => z.string().trim().min(1).max(max);
/** An optional string of at most `max` characters, empty when absent. */
const optionalText = (max: number) => z.string().max(max).optional().default('');

const text = boundedText(limits.text);
const id = boundedText(limits.id);
const secret = boundedText(limits.secret);

/** A missing address line is `""` (lenient where the provider is; Go leaves empty lines out). */
const AddressInput = z.object({
  line1: optionalText(limits.text),
  line2: optionalText(limits.text),
  line3: optionalText(limits.text),
});

/** The fields a beneficiary is created with, and (without `type`) given inline in a transfer. */
const beneficiaryFields = {
  swiftCode: boundedText(limits.code),
  sortCode: optionalText(limits.code),
  bankName: optionalText(limits.text),
  name: text,
  iban: boundedText(limits.iban),
  accountNumber: optionalText(limits.accountNumber),
  branchName: optionalText(limits.text),
  branchAddress: optionalText(limits.text),
  address: AddressInput.optional(),
};

export const NewBeneficiary = z.object({
  type: z.string().max(limits.text).optional().default('local'),
  ...beneficiaryFields,
  /** Creation shows a full country name. */
  country: text,
});
export type NewBeneficiary = z.infer<typeof NewBeneficiary>;

export const InlineBeneficiary = z.object({
  ...beneficiaryFields,
  /** The inline form shows a two-letter country code. */
  country: z.string().regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code'),
});
export type InlineBeneficiary = z.infer<typeof InlineBeneficiary>;

export const CardBalance = z.object({
  availableBalance: z.number(),
  outstandingBalance: z.number(),
  amountDue: z.union([z.number(), z.string()]),
  cardNumber: z.string(),
  dueDate: z.string(),
  currency: Currency,
});
export type CardBalance = z.infer<typeof CardBalance>;

// ---------------------------------------------------------------------------------------------
// Requests

const credentials = { appSecret: secret, userSecret: secret };
/** Answers to a question: an empty list answers nothing, and is refused as the deposits API refuses it. */
/**
 * Lenient where the provider is: an answer is matched by `id`; a missing `index` is its
 * position, a missing `query` empty (Go leaves out `index` 0 and `query` ""; Java and C# `query` null).
 */
const LenientAnswer = UserInputAnswer.extend({
  index: UserInputAnswer.shape.index.optional(),
  query: UserInputAnswer.shape.query.optional(),
});
const answers = {
  userInputs: z
    .array(LenientAnswer)
    .min(1)
    .max(limits.userInputs)
    .transform((inputs) =>
      inputs.map((input, position) => ({
        ...input,
        index: input.index ?? position,
        query: input.query ?? '',
      })),
    )
    .optional(),
};
const amount = z.number().positive();

/** Some banks ask questions on reads too: the repeated request carries `userInputs` (and `jobID`). */
const readRequest = { ...credentials, sync: z.boolean(), ...answers, jobID: id.optional() };

export const MetadataRequest = z.object(readRequest);
export type MetadataRequest = z.infer<typeof MetadataRequest>;

export const ListBeneficiariesRequest = z.object(readRequest);
export type ListBeneficiariesRequest = z.infer<typeof ListBeneficiariesRequest>;

export const CreateBeneficiaryRequest = z.object({
  ...credentials,
  sync: z.boolean(),
  ...NewBeneficiary.shape,
  ...answers,
  /** Sent with `userInputs` to answer the operation that asked for them (optional: rule 1). */
  jobID: id.optional(),
});
export type CreateBeneficiaryRequest = z.infer<typeof CreateBeneficiaryRequest>;

/**
 * What an inline transfer is for (`action`, "a string naming the automated payment flow"). The spec
 * shows no values, so any name is taken, at most `inputLimits.action` characters; it moves the money
 * as any transfer does, and the bank's record of the transfer keeps it.
 */
const TransferAction = boundedText(limits.action);

/** The inline form's own fields (endpoint 5). */
const inlineTransfer = { action: TransferAction, beneficiary: InlineBeneficiary };

export const AutoflowTransferRequest = z.object({
  ...credentials,
  sync: z.boolean().optional().default(true),
  amount,
  senderID: id,
  ...inlineTransfer,
  ...answers,
  operationID: id.optional(),
});
export type AutoflowTransferRequest = z.infer<typeof AutoflowTransferRequest>;

/**
 * `/v1/payment/transfer/create` takes both forms the spec files under "Create transfer": to a
 * beneficiary (`receiverID`, with its details on a first transfer where the bank demands them), or,
 * without `receiverID`, the inline form (`action` and `beneficiary`), as `/transfer/autoflow` does.
 */
export const TransferRequest = z
  .object({
    ...credentials,
    sync: z.boolean().optional().default(true),
    amount,
    senderID: id,
    receiverID: id.optional(),
    /** Beneficiary details (scenario 2), or the receiver itself (inline form, no `receiverID`). */
    beneficiary: InlineBeneficiary.optional(),
    action: TransferAction.optional(),
    ...answers,
    operationID: id.optional(),
  })
  .superRefine((body, context) => {
    if (body.receiverID !== undefined && body.action !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['action'],
        message: 'only with the inline receiver (without receiverID)',
      });
    }
    if (body.receiverID === undefined) {
      for (const field of ['action', 'beneficiary'] as const) {
        if (body[field] === undefined) {
          context.addIssue({
            code: 'custom',
            path: [field],
            message: 'required without receiverID (the inline receiver), else send receiverID',
          });
        }
      }
      if (body.action === undefined && body.beneficiary === undefined) {
        context.addIssue({ code: 'custom', path: ['receiverID'], message: 'required (or the inline form)' });
      }
    }
  });
export type TransferRequest = z.infer<typeof TransferRequest>;

export const BalanceRequest = z.object({
  ...credentials,
  sync: z.boolean().optional().default(true),
  cardID: id,
  ...answers,
  operationID: id.optional(),
});
export type BalanceRequest = z.infer<typeof BalanceRequest>;

export const OperationGetRequest = z
  .object({ ...credentials, operationID: id.optional(), jobID: id.optional() })
  .refine((body) => (body.operationID === undefined) !== (body.jobID === undefined), {
    message: 'exactly one of operationID and jobID is required',
    path: ['operationID'],
  });
export type OperationGetRequest = z.infer<typeof OperationGetRequest>;

export const ExchangeTokenRequest = z.object({ appSecret: secret, accessCode: secret, connectionID: id });
export type ExchangeTokenRequest = z.infer<typeof ExchangeTokenRequest>;
