/**
 * The answers of the provider's `dapi-v2` dialect (`dialects.ts`), as zod schemas that read them into
 * the spec's shapes (`responses.ts`), so that everything above the client is the same in both
 * dialects. Each point's source is in docs/provider-v2.md.
 *
 * Lenient where the provider is: a question's input without `index` is its position, without `query`
 * or `answer` empty; a string the SDKs decode as empty when `null` or absent is `""`; an address line
 * left out is `""`; an integer where the spec shows a decimal is a number like any other.
 * Strict where money is at stake: the operation's status and id, amounts, bounds, currencies,
 * beneficiary ids, and the refusal's type.
 */
import * as z from 'zod';
import { AccountsMetadata, CardBalance, OperationStatus } from './schemas.ts';

/** A string the SDKs read as empty when it is `null` or absent (Go, Java, C#: docs/provider-v2.md §2.2). */
const text = z
  .string()
  .nullish()
  .transform((value) => value ?? '');

/** A field returned only in some answers, read as absent when `null` (as the spec's are). */
const returnedOnlyWhen = <T extends z.ZodType>(schema: T) => schema.nullish();

/**
 * The inputs of a question: matched by `id`; a missing `index` is the input's position (Go leaves
 * out 0), a missing `query` or `answer` is empty (Go leaves out `""`; Java and C# null).
 */
export const V2UserInputs = z
  .array(
    z.object({
      id: z.string().min(1),
      index: z.number().int().nonnegative().nullish(),
      query: z.string().nullish(),
      answer: z.string().nullish(),
    }),
  )
  .transform((inputs) =>
    inputs.map((input, position) => ({
      id: input.id,
      index: input.index ?? position,
      query: input.query ?? '',
      answer: input.answer ?? '',
    })),
  );

/** Every v2 answer: `operationID`, never `jobID` (D-changelog; every SDK's `BaseResponse`). */
const envelope = {
  operationID: returnedOnlyWhen(z.string().min(1)),
  success: z.boolean(),
  status: OperationStatus,
  type: returnedOnlyWhen(z.string()),
  msg: returnedOnlyWhen(z.string()),
  userInputs: returnedOnlyWhen(V2UserInputs),
  reference: returnedOnlyWhen(z.string()),
};

/** A cool-down's period as the provider writes it: `{ value, unit }`, `value` an integer in the SDKs. */
export const CoolDownPeriod = z.object({ value: z.number().nonnegative(), unit: z.string().min(1) });

/**
 * A refusal: `coolDownPeriod` on a cool-down (D-weberr; Java's transfer responses); `msg` may be
 * missing. A `coolDownPeriod` it cannot read leaves the refusal a refusal, without its period.
 */
export const V2FailedEnvelope = z.object({
  operationID: returnedOnlyWhen(z.string()),
  success: z.literal(false),
  status: z.literal('failed'),
  type: z.string().min(1),
  msg: text,
  coolDownPeriod: CoolDownPeriod.nullish().catch(undefined),
});
export type V2FailedEnvelope = z.infer<typeof V2FailedEnvelope>;

/** Address lines the provider leaves out are `""` (Go's `omitempty`). */
const V2Address = z
  .object({ line1: text, line2: text, line3: text })
  .nullish()
  .transform((address) => address ?? { line1: '', line2: '', line3: '' });

/**
 * The bank's metadata: its strings as the SDKs read them (`null` as empty). Its bounds, cool-down,
 * flags and country as the spec's, strictly: they decide the route and the amount.
 */
export const V2AccountsMetadata = AccountsMetadata.extend({
  swiftCode: text,
  sortCode: z
    .string()
    .nullish()
    .transform((value) => value ?? null),
  bankName: text,
  branchName: text,
  branchAddress: text,
  address: V2Address,
});

/** A mask's opening (`****3456`): an identifier that shows only its end. */
const maskedStart = /^[*•●#xX]{2,}/;

/**
 * A listed beneficiary: `iban` beside `accountNumber` (Go, Java, C#), read into the spec's one
 * `accountNumber`, whole where the provider gives either whole (the wallet is matched on it).
 */
export const V2ListedBeneficiary = z
  .object({
    id: z.string().min(1),
    name: text,
    accountNumber: text,
    iban: text,
    type: text,
    status: text,
  })
  .transform(({ iban, accountNumber, ...listed }) => {
    const whole = (value: string) => value !== '' && !maskedStart.test(value.trim());
    const shown = whole(accountNumber) || !whole(iban) ? accountNumber || iban : iban;
    return { ...listed, accountNumber: shown };
  });

export const V2MetadataResponse = z.object({
  ...envelope,
  accountsMetadata: V2AccountsMetadata.optional(),
});

export const V2ListBeneficiariesResponse = z.object({
  ...envelope,
  beneficiaries: z.array(V2ListedBeneficiary).optional(),
});

/** Go, Java and C# declare `BaseResponse` only: no `reference`. */
export const V2CreateBeneficiaryResponse = z.object(envelope);

/**
 * `reference` (Go `TransferResponse`, D-create). A done transfer without one is referenced by its
 * operation's id: the provider's own name of the transfer, which its operation read answers for
 * (docs/sandbox.md, "Provider dialects").
 */
export const V2TransferResponse = z
  .object(envelope)
  .transform((answer) =>
    answer.status === 'done' && !answer.reference && answer.operationID
      ? { ...answer, reference: answer.operationID }
      : answer,
  );

/** The card balance, asked by `cardID` (PHP `getCardBalance`): the same answer as the spec's on the same path. */
export const V2BalanceResponse = z.object({ ...envelope, balance: returnedOnlyWhen(CardBalance) });

/**
 * `opInfo` of an operation read (D-opget): its status, the error type when it failed, the API path it
 * called, and a transfer's details (their schema is not in the documentation's copy: only a
 * `reference` is read from them, when it is a string). The dates are not read.
 */
export const OpInfo = z.object({
  status: OperationStatus,
  errorType: returnedOnlyWhen(z.string().min(1)),
  type: returnedOnlyWhen(z.string()).catch(undefined),
  transferDetails: z
    .looseObject({ reference: returnedOnlyWhen(z.string().min(1)).catch(undefined) })
    .nullish()
    .catch(undefined),
  /** Not in D-opget: read when a provider puts a question's inputs here. */
  userInputs: returnedOnlyWhen(V2UserInputs),
});
export type OpInfo = z.infer<typeof OpInfo>;

/** `POST /v2/operation/get`: the read's own `success` and `status`, and the operation's under `opInfo`. */
export const OperationInfoResponse = z.object({
  ...envelope,
  opInfo: OpInfo,
  coolDownPeriod: CoolDownPeriod.nullish().catch(undefined),
});
export type OperationInfoResponse = z.infer<typeof OperationInfoResponse>;
