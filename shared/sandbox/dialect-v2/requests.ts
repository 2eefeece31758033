/**
 * The `dapi-v2` dialect's requests, as the provider's official SDKs send them (docs/provider-v2.md
 * §1-§2), read at the sandbox's edge into the spec's requests, so that the banks and their rules run
 * unchanged (`operations/`). Unknown keys are ignored (Java's `action`, Go's `bankID`, C#'s `appKey`).
 *
 * Lenient where the provider is: no `sync` (the provider holds a call as `sync: true` does,
 * docs/sandbox.md "Provider dialects"); `operationID: ""` and `userInputs: []` (PHP, Java and C#
 * send them on every first call) are absent; a question's answer is matched by `id`, a missing
 * `index` its position, a missing `query` empty; an address line left out is `""`; the inline
 * receiver under `beneficiary` or Go's `Beneficiary`; scenario 2's details as top-level fields.
 * Strict where money is at stake: amounts, ids, the IBAN and the SWIFT code that name the receiver.
 */
import * as z from 'zod';
import { inputLimits as limits } from '#shared/provider/interface/limits';
import { boundedText, type InlineBeneficiary, type UserInput } from '#shared/provider/interface/schemas';

const id = boundedText(limits.id);
const secret = boundedText(limits.secret);
const text = boundedText(limits.text);
/** An optional string, empty when absent or `null` (Java and C# leave nulls out; Go leaves out `""`). */
const optional = (max: number) =>
  z
    .string()
    .max(max)
    .nullish()
    .transform((value) => value ?? '');

/** An id that may be sent empty (`operationID: ""`): empty is absent. */
const optionalId = z
  .string()
  .max(limits.id)
  .nullish()
  .transform((value) => (value?.trim() ? value.trim() : undefined));

/** A question's answers: by `id`; `index` its position when left out; `query` optional; `[]` is none. */
export const LenientAnswers = z
  .array(
    z.object({
      id: z.string().min(1).max(limits.inputId),
      index: z.number().int().nonnegative().max(limits.userInputs).nullish(),
      query: z.string().max(limits.query).nullish(),
      answer: z.string().max(limits.answer).nullish(),
    }),
  )
  .max(limits.userInputs)
  .nullish()
  .transform((inputs): UserInput[] | undefined =>
    inputs?.length
      ? inputs.map((input, position) => ({
          id: input.id,
          index: input.index ?? position,
          query: input.query ?? '',
          answer: input.answer ?? '',
        }))
      : undefined,
  );

/** Every v2 call but the token exchange: the secrets, and `operationID` with `userInputs` when resuming. */
const common = {
  appSecret: secret,
  userSecret: secret,
  operationID: optionalId,
  userInputs: LenientAnswers,
};

/** Address lines left out are `""`; Go always sends the object, possibly `{}`. */
const LenientAddress = z
  .object({
    line1: optional(limits.text),
    line2: optional(limits.text),
    line3: optional(limits.text),
  })
  .nullish()
  .transform((address) => address ?? undefined);

/** A beneficiary's fields as the SDKs send them (Go: each `omitempty`; no `sortCode` in Go). */
const beneficiaryFields = {
  name: text,
  iban: boundedText(limits.iban),
  swiftCode: boundedText(limits.code),
  accountNumber: optional(limits.accountNumber),
  sortCode: optional(limits.code),
  bankName: optional(limits.text),
  branchName: optional(limits.text),
  branchAddress: optional(limits.text),
  nickname: optional(limits.text),
  phoneNumber: optional(limits.text),
  /** "AE" (D-bencreate) or the country's name in capitals (the SDKs' READMEs): either is taken. */
  country: optional(limits.text),
  address: LenientAddress,
};

export const V2MetadataRequest = z.object(common);
export type V2MetadataRequest = z.infer<typeof V2MetadataRequest>;

export const V2ListBeneficiariesRequest = z.object(common);
export type V2ListBeneficiariesRequest = z.infer<typeof V2ListBeneficiariesRequest>;

export const V2CreateBeneficiaryRequest = z.object({
  ...common,
  ...beneficiaryFields,
  type: z
    .string()
    .max(limits.text)
    .nullish()
    .transform((value) => value || 'local'),
});
export type V2CreateBeneficiaryRequest = z.infer<typeof V2CreateBeneficiaryRequest>;

const InlineReceiver = z.object(beneficiaryFields);
type InlineReceiver = z.infer<typeof InlineReceiver>;

const transferFields = {
  ...common,
  amount: z.number().positive(),
  senderID: id,
  remark: optional(limits.text),
  /** The inline receiver: `beneficiary` (D-auto, Java, C#) or `Beneficiary` (Go: no JSON tag). */
  beneficiary: InlineReceiver.optional(),
  Beneficiary: InlineReceiver.optional(),
};

const bothSpellings = (body: { beneficiary?: unknown; Beneficiary?: unknown }) =>
  !(body.beneficiary !== undefined && body.Beneficiary !== undefined);
const oneReceiver = {
  message: 'send the inline receiver once (beneficiary or Beneficiary)',
  path: ['beneficiary'],
};

/** `/v2/payment/transfer/autoflow`: the receiver inline, no `action` (no SDK sends a flow's name). */
export const V2AutoflowRequest = z
  .object(transferFields)
  .refine(bothSpellings, oneReceiver)
  .refine((body) => (body.beneficiary ?? body.Beneficiary) !== undefined, {
    message: 'required: the receiver (beneficiary)',
    path: ['beneficiary'],
  });
export type V2AutoflowRequest = z.infer<typeof V2AutoflowRequest>;

/**
 * `/v2/payment/transfer/create`: to `receiverID`, with scenario 2's details as top-level `name`,
 * `iban`, `accountNumber` (Go `TransferRequest`); without `receiverID`, the receiver inline (PHP's
 * `transferAutoflow` posts that form to this path), or named by those top-level `name` and `iban`
 * alone (Java's and C#'s `Transfer` with details, PHP's README `transferData`).
 */
export const V2TransferRequest = z
  .object({
    ...transferFields,
    receiverID: optionalId,
    name: optional(limits.text),
    iban: optional(limits.iban),
    accountNumber: optional(limits.accountNumber),
  })
  .refine(bothSpellings, oneReceiver)
  .refine(
    (body) =>
      body.receiverID !== undefined ||
      (body.beneficiary ?? body.Beneficiary) !== undefined ||
      (body.name !== '' && body.iban !== ''),
    {
      message: 'required: receiverID, or the receiver inline (beneficiary, or top-level name and iban)',
      path: ['receiverID'],
    },
  );
export type V2TransferRequest = z.infer<typeof V2TransferRequest>;

/**
 * The balance, on the path both dialects share, as PHP, Java and C# call it: their first call's
 * `operationID: ""` (all three) and `userInputs: []` (PHP) are absent there too, in either dialect.
 */
export function withoutEmptyResume<S extends z.ZodType>(schema: S) {
  return z.preprocess((body) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
    const { operationID, userInputs, ...rest } = body as Record<string, unknown>;
    const emptyId = typeof operationID === 'string' && operationID.trim() === '';
    const noInputs = Array.isArray(userInputs) && userInputs.length === 0;
    return {
      ...rest,
      ...(operationID === undefined || emptyId ? {} : { operationID }),
      ...(userInputs === undefined || noInputs ? {} : { userInputs }),
    };
  }, schema);
}

/** The inline receiver as the spec's operations read it (the spec's two-letter country is not checked here). */
export function inlineOf(receiver: InlineReceiver): InlineBeneficiary {
  const { nickname: _n, phoneNumber: _p, address, ...fields } = receiver;
  return { ...fields, ...(address ? { address } : {}) };
}

/** The receiver a v2 transfer names inline, under either spelling. */
export function receiverOf(body: { beneficiary?: InlineReceiver; Beneficiary?: InlineReceiver }) {
  const receiver = body.beneficiary ?? body.Beneficiary;
  return receiver ? inlineOf(receiver) : undefined;
}

/**
 * Scenario 2's details, as the spec's nested `beneficiary` (only its IBAN is compared with the
 * beneficiary's; the other fields are the registered beneficiary's own). None when no detail is sent.
 * Without `receiverID`, the receiver itself: no SWIFT code, so a transfer of type `local` (guess).
 */
export function detailsOf(body: { name: string; iban: string; accountNumber: string }) {
  if (!body.iban) return undefined;
  const detail: InlineBeneficiary = {
    name: body.name,
    iban: body.iban,
    accountNumber: body.accountNumber,
    swiftCode: '',
    sortCode: '',
    bankName: '',
    branchName: '',
    branchAddress: '',
    country: '',
  };
  return detail;
}
