/**
 * The deposits API's requests and answers. It follows the spec's conventions: secrets in the body,
 * bearer token. Every request field is bounded (`inputLimits`), checked before anything is read or
 * stored, and a request is strict: a field it does not know is refused, named. The answers are what
 * `depositView` gives; the OpenAPI document and the typed client are built on both.
 */
import * as z from 'zod';
import { businessFields, DepositStatus, DepositStep } from '#shared/deposits/model/deposit';
import { failureTypeNames } from '#shared/deposits/model/failures';
import { SourceStatus } from '#shared/deposits/model/sources';
import { inputLimits } from '#shared/provider/interface/limits';
import { boundedText, UserInput, UserInputAnswers } from '#shared/provider/interface/schemas';

const id = boundedText(inputLimits.id);
const secret = boundedText(inputLimits.secret);

const { maxKeys, maxKey, maxValue } = businessFields.metadata;
/** No control characters (a line break, a NUL) in what is shown on every view and event. */
const noControl = /^[^\p{Cc}]*$/u;

/** The caller's own reference of a deposit: unique per backend (docs/deposits.md, "Business fields"). */
export const ClientReference = z
  .string()
  .regex(businessFields.clientReference.pattern, 'must be 1 to 128 printable ASCII characters, no spaces');

/** The caller's own small string map of a deposit, shown on every view and event. */
export const Metadata = z
  .record(
    z.string().min(1).max(maxKey).regex(noControl, 'must hold no control characters'),
    z.string().max(maxValue).regex(noControl, 'must hold no control characters'),
  )
  .refine((map) => Object.keys(map).length <= maxKeys, `at most ${maxKeys} keys`);

export const CreateDepositRequest = z.strictObject({
  appSecret: secret,
  userSecret: secret,
  /** Major units of the wallet account's currency. */
  amount: z.number().positive(),
  senderID: id,
  walletAccountID: id.optional(),
  /** Answers to the provider's question, sent with the same Idempotency-Key. */
  userInputs: UserInputAnswers.min(1).optional(),
  /** The caller's own reference: a second create with it answers the first deposit. */
  clientReference: ClientReference.optional(),
  /** The caller's own map: at most 20 keys of 1 to 40 characters, values at most 500. */
  metadata: Metadata.optional(),
});
export type CreateDepositRequest = z.infer<typeof CreateDepositRequest>;

/**
 * The user's secrets on a read, a cancel or an answer: optional. The backend that created a deposit
 * reads it by its id alone (docs/deposits.md, "Whose deposits"); a `userSecret` sent narrows what
 * the caller sees to that user's, as the connection's token does to its connection's. `appSecret`
 * is taken, and not used, so that a request that sends both secrets, as reads did before the
 * backend's identity was enough, keeps working.
 */
const readerSecrets = { appSecret: secret.optional(), userSecret: secret.optional() };

export const GetDepositRequest = z.strictObject({ ...readerSecrets, operationID: id });
export type GetDepositRequest = z.infer<typeof GetDepositRequest>;

/**
 * An answer to the bank's question (`POST /v1/deposits/answer`): each input by its `id`. `index` and
 * `query` are the question's own and need not be sent back (they are taken, and not used, so that
 * an input echoed whole is not refused).
 */
export const AnswerInput = z.strictObject({
  id: z.string().min(1).max(inputLimits.inputId),
  answer: z.string().max(inputLimits.answer),
  index: z.number().int().nonnegative().max(inputLimits.userInputs).optional(),
  query: z.string().max(inputLimits.query).optional(),
});
export type AnswerInput = z.infer<typeof AnswerInput>;

export const AnswerDepositRequest = z.strictObject({
  ...readerSecrets,
  operationID: id,
  userInputs: z.array(AnswerInput).min(1).max(inputLimits.userInputs),
});
export type AnswerDepositRequest = z.infer<typeof AnswerDepositRequest>;

export const CancelDepositRequest = GetDepositRequest;
export type CancelDepositRequest = GetDepositRequest;

/** How many deposits a list answers at most, and by default. */
export const LIST_LIMIT = { max: 100, default: 20 };

const page = {
  limit: z.number().int().min(1).max(LIST_LIMIT.max).default(LIST_LIMIT.default),
  /** The `cursor` of the previous page's answer (an opaque string well under 512 characters). */
  cursor: boundedText(512).optional(),
};

export const ListDepositsRequest = z.strictObject({
  ...readerSecrets,
  ...page,
  /** Only the deposits of this status. */
  status: DepositStatus.optional(),
});
export type ListDepositsRequest = z.infer<typeof ListDepositsRequest>;

export const CreateSourceRequest = z.strictObject({
  appSecret: secret,
  userSecret: secret,
  walletAccountID: id.optional(),
  /** Answers to the provider's question, sent with the same Idempotency-Key. */
  userInputs: UserInputAnswers.min(1).optional(),
});
export type CreateSourceRequest = z.infer<typeof CreateSourceRequest>;

export const GetSourceRequest = z.strictObject({ ...readerSecrets, sourceID: id });
export type GetSourceRequest = z.infer<typeof GetSourceRequest>;

export const CancelSourceRequest = GetSourceRequest;
export type CancelSourceRequest = GetSourceRequest;

export const ListSourcesRequest = z.strictObject({ ...readerSecrets, ...page });
export type ListSourcesRequest = z.infer<typeof ListSourcesRequest>;

/** An Idempotency-Key: printable, at most 255 characters. */
export const IdempotencyKey = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1 to 255 printable ASCII characters');

// ---------------------------------------------------------------------------------------------
// Answers

const instant = z.iso.datetime();

/** Why a deposit failed: a closed set (ours, the interface's, the real provider's; `failures.ts`). */
export const FailureType = z.enum(failureTypeNames);
export type FailureType = z.infer<typeof FailureType>;

/** What every deposit shows, whatever its status. */
const depositFields = {
  operationID: z.string(),
  step: DepositStep,
  amount: z.number(),
  currency: z.string().length(3),
  walletAccountID: z.string(),
  /** The user's bank account the money comes from. */
  senderID: z.string(),
  /** The caller's own reference and map, when it gave them. */
  clientReference: z.string().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  history: z.array(
    z.object({ step: DepositStep, status: DepositStatus, at: instant, note: z.string().optional() }),
  ),
  createdAt: instant,
  updatedAt: instant,
};

/** In progress; `resumesAt` while it waits for the bank's cool-down. */
export const DepositInProgress = z
  .object({
    ...depositFields,
    status: z.literal('initialized'),
    success: z.literal(true),
    resumesAt: instant.optional(),
  })
  .meta({ id: 'DepositInProgress' });

/** Waiting for the caller's answers to the bank's question (`POST /v1/deposits/answer`). */
export const DepositAsking = z
  .object({
    ...depositFields,
    status: z.literal('user_input_required'),
    success: z.literal(true),
    userInputs: z.array(UserInput),
    inputExpiresAt: instant,
  })
  .meta({ id: 'DepositAsking' });

/** Done: the money moved, under the bank's `reference`. */
export const DepositDone = z
  .object({ ...depositFields, status: z.literal('done'), success: z.literal(true), reference: z.string() })
  .meta({ id: 'DepositDone' });

/** Failed: why (`type`, a closed set) and what its owner is told (`msg`, a fixed text per type). */
export const DepositFailed = z
  .object({
    ...depositFields,
    status: z.literal('failed'),
    success: z.literal(false),
    type: FailureType,
    msg: z.string(),
  })
  .meta({ id: 'DepositFailed' });

/**
 * A deposit as its owner reads it (`depositView`): create, get, answer, cancel, and each item of a
 * list. A union on `status`: each status carries what it means, and only that.
 */
export const Deposit = z
  .discriminatedUnion('status', [DepositInProgress, DepositAsking, DepositDone, DepositFailed])
  .meta({ id: 'Deposit' });
export type Deposit = z.infer<typeof Deposit>;

/** A deposit's fields, whatever its status, each as loose as the union's widest: the operator's view builds on it. */
export const DepositAnyStatus = z.object({
  ...depositFields,
  status: DepositStatus,
  success: z.boolean(),
  resumesAt: instant.optional(),
  userInputs: z.array(UserInput).optional(),
  inputExpiresAt: instant.optional(),
  reference: z.string().optional(),
  type: z.string().optional(),
  msg: z.string().optional(),
});

export const DepositList = z
  .object({
    deposits: z.array(Deposit),
    /** There while more may follow: send it back for the next page. */
    cursor: z.string().optional(),
  })
  .meta({ id: 'DepositList' });
export type DepositList = z.infer<typeof DepositList>;

export const Health = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });

/** A payment source as its owner reads it (`sourceView`): create, get, and each item of a list. */
export const Source = z
  .object({
    sourceID: z.string(),
    /** `false` only once it failed. */
    success: z.boolean(),
    status: z.enum(SourceStatus),
    walletAccountID: z.string(),
    /** The user's bank, once known. */
    bankName: z.string().optional(),
    /** While the bank's cool-down runs (`status: cooling_down`): when deposits go straight through. */
    readyAt: instant.optional(),
    /** While it waits for the caller's answers (`status: user_input_required`). */
    userInputs: z.array(UserInput).optional(),
    inputExpiresAt: instant.optional(),
    /** Why it failed. */
    type: z.string().optional(),
    msg: z.string().optional(),
    history: z.array(
      z.object({ step: DepositStep, status: z.enum(SourceStatus), at: instant, note: z.string().optional() }),
    ),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'Source' });
export type Source = z.infer<typeof Source>;

export const SourceList = z
  .object({
    sources: z.array(Source),
    /** There while more may follow: send it back for the next page. */
    cursor: z.string().optional(),
  })
  .meta({ id: 'SourceList' });
export type SourceList = z.infer<typeof SourceList>;
