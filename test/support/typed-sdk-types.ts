/**
 * The response types Dapi's Java and C# SDKs share, as zod schemas (Java `response/`, `types/`; C#
 * `Response/`, `Types/`), field for field: what the conformance tests decode each answer against. The
 * requests and the `DapiApp` methods that send them are in test/support/typed-sdk.ts.
 */
import * as z from 'zod';
import { APIStatus, BeneficiaryStatus, Currency, int } from './sdk-common.ts';

/** `UserInput.UserInputID` (Java, C#): the ids a question may carry; C# throws on any other. */
export const UserInputID = z.enum(['otp', 'secret_question', 'captcha', 'pin', 'confirmation', 'token']);
/** `Beneficiary.BeneficiaryType` (Java, C#; also a transfer bound's `type`). */
export const BeneficiaryType = z.enum(['own', 'same', 'local', 'intl']);
/** `Range`: an `int` value (Gson and Newtonsoft fail on a fraction) and its unit. */
export const Range = z.object({ value: int, unit: z.string() });

/** `UserInput` as Java and C# decode it: `id` of the enum, `index` an int; `query` is what the user reads. */
const TypedUserInput = z.object({ id: UserInputID, index: int, query: z.string(), answer: z.string() });

/**
 * `BaseResponse` as Java (`response/BaseResponse.java`) and C# (`Response/BaseResponse.cs`) declare it.
 * Java answers `UNEXPECTED_RESPONSE` when `status` is missing or unknown and there is no `type`; C#
 * throws on an unknown status and reads a missing one as `initialized`: so `status` is required.
 */
export const TypedBase = z.object({
  operationID: z.string().min(1),
  success: z.boolean(),
  status: APIStatus,
  userInputs: z.array(TypedUserInput).optional(),
  type: z.string().optional(),
  msg: z.string().optional(),
});

/** `ValidatorProps` (Java, C#): `attributes` an array (an object fails both). */
const ValidatorProps = z.object({
  required: z.boolean(),
  length: int,
  allowedCharacters: z.string().nullish(),
  attributes: z.array(z.unknown()).nullish(),
});
const beneficiaryValidator = z
  .object(
    Object.fromEntries(
      [
        'name',
        'nickname',
        'swiftCode',
        'iban',
        'accountNumber',
        'address',
        'branchAddress',
        'branchName',
        'country',
        'phoneNumber',
        'sortCode',
      ].map((field) => [field, ValidatorProps.optional()]),
    ),
  )
  .optional();
const transferValidator = z.object({ remarks: ValidatorProps.optional() }).optional();

/**
 * `AccountsMetadata` (Java `types/AccountsMetadata.java`, C# `Types/AccountsMetadata.cs`): the same
 * fields, with Go's (`response/accountsMetadata.go`) but for the bound's `type`, an enum here, and
 * `validators` with `address` a plain `ValidatorProps` (left out by the sandbox; if written, so).
 */
export const TypedAccountsMetadata = z.object({
  isCreateBeneficiaryEndpointRequired: z.boolean(),
  willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod: z.boolean(),
  swiftCode: z.string(),
  sortCode: z.string().nullish(),
  bankName: z.string(),
  branchName: z.string(),
  branchAddress: z.string(),
  address: z.object({ line1: z.string(), line2: z.string(), line3: z.string() }),
  transferBounds: z.array(z.object({ minimum: int, type: BeneficiaryType, currency: Currency })),
  beneficiaryCoolDownPeriod: Range,
  transactionRange: Range,
  country: z.object({ code: z.string(), name: z.string() }),
  validators: z
    .object({
      createBeneficiary: z.object({ local: beneficiaryValidator, same: beneficiaryValidator }).optional(),
      createTransfer: z.object({ local: transferValidator, same: transferValidator }).optional(),
    })
    .optional(),
});

/** `Beneficiary` (Java `types/Beneficiary.java`, C# `Types/Beneficiary.cs`): both enums required. */
export const TypedBeneficiary = z.object({
  name: z.string(),
  id: z.string().min(1),
  type: BeneficiaryType,
  status: BeneficiaryStatus,
  iban: z.string(),
  accountNumber: z.string(),
});

/** `Balance` (Java, C#): `amount` a `String`, which Gson and Newtonsoft fill from a number or a string. */
export const TypedBalance = z.object({
  amount: z.union([z.number(), z.string()]),
  accountNumber: z.string(),
  currency: Currency,
});

/** A done answer of `type`: `success` true, `status` done. */
const done = <T extends z.ZodRawShape>(shape: T) =>
  TypedBase.extend({ success: z.literal(true), status: z.literal('done'), ...shape });

/** The response types of both SDKs' `DapiApp` methods, as each file declares them. */
export const TypedTypes = {
  /** `ExchangeTokenResponse`: `accessToken`, `tokenID`, `userID`. */
  ExchangeTokenResponse: done({
    accessToken: z.string().min(1),
    tokenID: z.string().min(1),
    userID: z.string().min(1),
  }),
  /** `GetAccountsMetadataResponse`: `accountsMetadata`. */
  GetAccountsMetadataResponse: done({ accountsMetadata: TypedAccountsMetadata }),
  /** `GetBeneficiariesResponse`: `beneficiaries`. */
  GetBeneficiariesResponse: done({ beneficiaries: z.array(TypedBeneficiary) }),
  /** `CreateBeneficiaryResponse`: the base alone. */
  CreateBeneficiaryResponse: done({}),
  /** `CreateTransferResponse`, `TransferAutoflowResponse`: `reference`. */
  TransferResponse: done({ reference: z.string().min(1) }),
  /** `GetBalanceResponse`: `balance`. */
  GetBalanceResponse: done({ balance: TypedBalance }),
  /** Any of them asking: `userInputs` of the enum's ids. */
  Asked: TypedBase.extend({
    status: z.literal('user_input_required'),
    userInputs: z.array(TypedUserInput).min(1),
  }),
  /** Any of them refused: the base's `type` and `msg` (both SDKs decode any HTTP status's body). */
  Refusal: TypedBase.extend({
    success: z.literal(false),
    status: z.literal('failed'),
    type: z.string().min(1),
    msg: z.string(),
  }),
} as const;
