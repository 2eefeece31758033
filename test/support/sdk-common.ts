/**
 * What the conformance tests of Dapi's official SDKs share (test/support/{go,php,java,csharp}-sdk.ts;
 * docs/provider-v2.md): a sandbox user as an SDK's caller holds it, the request as text on the wire
 * (Java and C# write their 32-bit float amounts as `250.0`), decoding an answer against a zod schema of
 * an SDK's response type, and the types that Go, Java and C# declare alike: their enums (docs/provider-v2.md
 * §1 "Enumerations named"), `Range` and `Currency` with their integers, and the account metadata and
 * beneficiary as Java's `types/` and C#'s `Types/` declare them field for field.
 */
import { expect } from 'vitest';
import * as z from 'zod';
import { SandboxUserResponse } from '#shared/sandbox/admin-schemas';
import { appSecret, post, type Reply } from './sandbox.ts';

export const int = z.number().int();

/** `APIStatus` (Java, C#; Go's status constants): C# throws on any other value, Java reads null. */
export const APIStatus = z.enum(['initialized', 'failed', 'user_input_required', 'done']);
/** `UserInput.UserInputID` (Java, C#): the ids a question may carry; C# throws on any other. */
export const UserInputID = z.enum(['otp', 'secret_question', 'captcha', 'pin', 'confirmation', 'token']);
/** `Beneficiary.BeneficiaryType` (Java, C#; also a transfer bound's `type`). */
export const BeneficiaryType = z.enum(['own', 'same', 'local', 'intl']);
/** `Beneficiary.BeneficiaryStatus` (Go, Java, C#): no `pending`. */
export const BeneficiaryStatus = z.enum([
  'approved',
  'rejected',
  'cancelled',
  'waiting_for_confirmation',
  'modified_for_pending_approval',
]);

export const Currency = z.object({ code: z.string(), name: z.string() });
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

/** The answer decoded against an SDK's type: the schema's issues name what the SDK would fail on or miss. */
export function decoded<S extends z.ZodType>(schema: S, reply: Reply): z.infer<S> {
  const result = schema.safeParse(reply.body);
  expect(result.error?.issues ?? [], JSON.stringify(reply.body).slice(0, 1500)).toEqual([]);
  return result.data as z.infer<S>;
}

/** A sandbox user, as the caller of an SDK holds it after Connect's login: before the token exchange. */
export interface SdkLogin {
  connectionID: string;
  accessCode: string;
  userSecret: string;
  accountID: string;
  cardID: string;
}

/** A fresh sandbox user at `bankId`. */
export async function sandboxLogin(bankId: string): Promise<SdkLogin> {
  const created = await post('/sandbox/users', { appSecret, bankId });
  if (created.status !== 201) throw new Error(`user not created: ${JSON.stringify(created.body)}`);
  const { connectionID, accessCode, userSecret, accounts, cards } = created.body;
  return { connectionID, accessCode, userSecret, accountID: accounts[0].id, cardID: cards[0].id };
}

/** The transfers the sandbox holds for the user (its administration): what moved, and to whom. */
export async function transfersOf(login: SdkLogin) {
  const reply = await post('/sandbox/users/get', { appSecret, connectionID: login.connectionID });
  return SandboxUserResponse.parse(reply.body).transfers;
}

/**
 * A 32-bit float as Gson (`Float.toString`) and Newtonsoft (`"R"`, then a `.0` if there is no point)
 * write it: the shortest decimal that reads back as the same float, with `.0` on a whole number.
 * Both switch to an exponent outside [0.001, 10^7); the tests' amounts stay inside.
 */
export function floatLiteral(value: number): string {
  const single = Math.fround(value);
  if (!(Math.abs(single) >= 0.001 && Math.abs(single) < 1e7)) throw new Error(`no plain literal: ${value}`);
  for (let digits = 1; digits <= 9; digits++) {
    const text = String(Number(single.toPrecision(digits)));
    if (Math.fround(Number(text)) === single) return text.includes('.') ? text : `${text}.0`;
  }
  return String(single);
}

/** A JSON body whose `amount` (top level) is written as a 32-bit float literal (Java, C#). */
export function withFloatAmount(body: Record<string, unknown>): string {
  const { amount, ...rest } = body;
  if (typeof amount !== 'number') return JSON.stringify(body);
  const text = JSON.stringify(rest);
  return `{"amount":${floatLiteral(amount)}${text === '{}' ? '' : `,${text.slice(1)}`}`;
}

/** Sends a request as an SDK writes it: `POST <sandbox>/v2<path>`, its headers, its body as text. */
export function sendV2(path: string, body: string, headers: Record<string, string>): Promise<Reply> {
  return post(`/v2${path}`, body, headers);
}

/** The operator's wallet, the receiver every SDK registers or names inline. */
export const wallet = {
  name: 'Acme Wallet LLC',
  iban: 'AE070331234567890123456',
  accountNumber: '1234567890123456',
  swiftCode: 'WALTAEAD',
  bankName: 'Wallet Bank',
  branchName: 'Head Office',
  branchAddress: 'Wallet Street 1 Dubai',
  address: { line1: 'Wallet Street 1', line2: 'Dubai', line3: 'United Arab Emirates' },
} as const;

/** The sandbox's one-time password: the answer to every question its banks ask. */
export const sandboxOtp = '123456';
