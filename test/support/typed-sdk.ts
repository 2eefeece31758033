/**
 * What Dapi's Java and C# SDKs share, as the conformance tests play them (test/support/java-sdk.ts,
 * csharp-sdk.ts; docs/provider-v2.md). Their `DapiApp`s have the same methods with the same
 * arguments (Java `src/main/java/co/dapi/DapiApp.java`, `Payment.java`, `Data.java`, `Metadata.java`,
 * `Auth.java`; C# `src/Dapi/DapiApp.cs`, `src/Dapi/Products/*.cs`), build each body from a request class
 * that extends `BaseRequest` (`appSecret`, `userSecret`, `operationID`, `userInputs`), leave nulls out
 * (Gson's default; Newtonsoft's `NullValueHandling.Ignore`), write `amount` as a 32-bit `float`, and
 * decode into the same response types (Java `response/`, `types/`; C# `Response/`, `Types/`), field
 * for field. What differs (headers, Java's `action`, Java's `coolDownPeriod`) each SDK's module says.
 *
 * Every short form of `DapiApp` (the one without `operationID` and `userInputs`) passes
 * `operationID: ""` and `userInputs: null`; resuming passes both. A caller answers a question with the
 * 3-argument `UserInput(id, index, answer)`: `query` null, left out; `index` always sent, 0 included.
 */
import * as z from 'zod';
import { appSecret, type Reply } from './in-process-sandbox.ts';
import {
  APIStatus,
  BeneficiaryStatus,
  Currency,
  decoded,
  int,
  type SdkLogin,
  sandboxLogin,
  sandboxOtp,
  sendV2,
  wallet,
} from './sdk-common.ts';

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

/**
 * A request class as Gson and Newtonsoft write it: `null` fields left out (at any depth), the top-level
 * `amount` a 32-bit float literal.
 */
export function wireJson(body: Record<string, unknown>): string {
  const { amount, ...rest } = body;
  const text = JSON.stringify(rest, (_key, value) => (value === null ? undefined : value));
  if (typeof amount !== 'number') return text;
  return `{"amount":${floatLiteral(amount)}${text === '{}' ? '' : `,${text.slice(1)}`}`;
}

// ---------------------------------------------------------------------------------------------
// Response types

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

// ---------------------------------------------------------------------------------------------
// Requests

type Nullable<T> = T | null;

/** `UserInput` as a caller builds it: `query` null with the 3-argument constructor. */
export interface UserInputArg {
  id: z.infer<typeof UserInputID>;
  index: number;
  query: Nullable<string>;
  answer: string;
}

/** `new UserInput(id, index, answer)` for each asked input. */
export function answersTo(asked: z.infer<typeof TypedTypes.Asked>['userInputs'], answer: string) {
  return asked.map((input): UserInputArg => ({ id: input.id, index: input.index, query: null, answer }));
}

/** `BeneficiaryAddress(line1, line2, line3)`. */
interface BeneficiaryAddress {
  line1: Nullable<string>;
  line2: Nullable<string>;
  line3: Nullable<string>;
}

/** `Payment.BeneficiaryInfo`, its fields in the class's order. */
export interface BeneficiaryInfo {
  name: string;
  accountNumber: string;
  iban: string;
  swiftCode: string;
  type: z.infer<typeof BeneficiaryType>;
  address: BeneficiaryAddress;
  country: string;
  branchAddress: string;
  branchName: string;
  bankName: Nullable<string>;
  phoneNumber: Nullable<string>;
  sortCode: Nullable<string>;
  nickname: Nullable<string>;
  routingNumber: Nullable<string>;
}

/** The 9-argument `BeneficiaryInfo` ("only the required info"): the other five null. */
export function requiredBeneficiaryInfo(
  info: Omit<BeneficiaryInfo, 'bankName' | 'phoneNumber' | 'sortCode' | 'nickname' | 'routingNumber'>,
): BeneficiaryInfo {
  return { ...info, bankName: null, phoneNumber: null, sortCode: null, nickname: null, routingNumber: null };
}

/** `Payment.Transfer`, its fields in the class's order. */
export interface Transfer {
  senderID: string;
  amount: number;
  receiverID: Nullable<string>;
  name: Nullable<string>;
  iban: Nullable<string>;
  accountNumber: Nullable<string>;
  remark: Nullable<string>;
  nickname: Nullable<string>;
}

/** `Transfer(senderID, amount, receiverID[, remark])`: to a beneficiary, no details. */
export function transferTo(
  senderID: string,
  amount: number,
  receiverID: string,
  remark: Nullable<string> = null,
) {
  const details = { name: null, iban: null, accountNumber: null };
  return { senderID, amount, receiverID, ...details, remark, nickname: null } satisfies Transfer;
}

/**
 * `Transfer(senderID, amount, name, iban, accountNumber[, remark, nickname])`: "a bank that handles the
 * creation of beneficiaries on its own"; `receiverID` null, so never details with a `receiverID`.
 */
export function transferWithDetails(
  senderID: string,
  amount: number,
  receiver: { name: string; iban: string; accountNumber: string },
  remark: Nullable<string> = null,
  nickname: Nullable<string> = null,
) {
  const { name, iban, accountNumber } = receiver;
  return {
    senderID,
    amount,
    receiverID: null,
    name,
    iban,
    accountNumber,
    remark,
    nickname,
  } satisfies Transfer;
}

/** `Payment.TransferAutoflow(bundleID, appKey, userID, bankID, senderID, amount, beneficiary[, remark])`. */
export interface TransferAutoflow {
  bundleID: string;
  appKey: string;
  userID: string;
  bankID: string;
  senderID: string;
  amount: number;
  beneficiary: BeneficiaryInfo;
  remark: Nullable<string>;
}

/** A user as a caller of either SDK holds it: Connect's login, the exchange's token and `userID`. */
export interface TypedUser extends SdkLogin {
  accessToken: string;
  userID: string;
  exchanged: Reply;
}

/** `operationID` and `userInputs` as a method passes them: the short form's `""` and null by default. */
export interface Resume {
  operationID: string;
  userInputs: Nullable<UserInputArg[]>;
}
const shortForm: Resume = { operationID: '', userInputs: null };

/** What one SDK adds: its headers (`Authorization` aside), and whether the body names its call (`action`). */
export interface TypedSdk {
  headers: Record<string, string>;
  action: boolean;
}

/** The methods of `DapiApp`, each as its product class builds the request. */
export function typedApp(sdk: TypedSdk) {
  const body = (path: string, fields: object) => ({ ...(sdk.action ? { action: path } : {}), ...fields });
  const call = (user: TypedUser, path: string, fields: object, resume: Resume = shortForm) =>
    sendV2(path, wireJson({ ...body(path, fields), appSecret, userSecret: user.userSecret, ...resume }), {
      ...sdk.headers,
      authorization: `Bearer ${user.accessToken}`,
    });
  return {
    /** `Auth.exchangeToken`: `appSecret`, `accessCode`, `connectionID`; no `Authorization`. */
    exchangeToken: (login: SdkLogin) =>
      sendV2(
        '/auth/ExchangeToken',
        wireJson(
          body('/auth/ExchangeToken', {
            appSecret,
            accessCode: login.accessCode,
            connectionID: login.connectionID,
          }),
        ),
        sdk.headers,
      ),
    getAccountsMetadata: (user: TypedUser, resume?: Resume) =>
      call(user, '/metadata/accounts/get', {}, resume),
    getBeneficiaries: (user: TypedUser, resume?: Resume) =>
      call(user, '/payment/beneficiaries/get', {}, resume),
    /** `CreateBenefRequest` / `CreateBeneficiariesRequest`: the info's fields at the top level. */
    createBeneficiary: (user: TypedUser, beneficiary: BeneficiaryInfo, resume?: Resume) =>
      call(user, '/payment/beneficiaries/create', beneficiary, resume),
    createTransfer: (user: TypedUser, transfer: Transfer, resume?: Resume) =>
      call(user, '/payment/transfer/create', transfer, resume),
    /** `TransferAutoflowRequest`: `bundleID`, `appKey`, `userID`, `bankID`, the order, `beneficiary`, `remark`. */
    transferAutoflow: (user: TypedUser, autoflow: TransferAutoflow, resume?: Resume) =>
      call(user, '/payment/transfer/autoflow', autoflow, resume),
    getBalance: (user: TypedUser, accountID: string, resume?: Resume) =>
      call(user, '/data/balance/get', { accountID }, resume),
  };
}

/** A fresh sandbox user at `bankId`, its access code exchanged with `app`'s `exchangeToken`. */
export async function typedUser(app: ReturnType<typeof typedApp>, bankId: string): Promise<TypedUser> {
  const login = await sandboxLogin(bankId);
  const exchanged = await app.exchangeToken(login);
  return { ...login, accessToken: exchanged.body.accessToken, userID: exchanged.body.userID, exchanged };
}

/** The wallet as the 9-argument `BeneficiaryInfo` (the READMEs' country: its name in capitals). */
export const walletInfo: BeneficiaryInfo = requiredBeneficiaryInfo({
  name: wallet.name,
  accountNumber: wallet.accountNumber,
  iban: wallet.iban,
  swiftCode: wallet.swiftCode,
  type: 'local',
  address: wallet.address,
  country: 'UNITED ARAB EMIRATES',
  branchAddress: wallet.branchAddress,
  branchName: wallet.branchName,
});

/** A fresh user at `bankId`: `getAccountsMetadata`, `getBeneficiaries`, `createBeneficiary`, the list again. */
export async function registeredWith(app: ReturnType<typeof typedApp>, bankId: string) {
  const user = await typedUser(app, bankId);
  const metadata = decoded(TypedTypes.GetAccountsMetadataResponse, await app.getAccountsMetadata(user));
  const before = decoded(TypedTypes.GetBeneficiariesResponse, await app.getBeneficiaries(user));
  const created = await app.createBeneficiary(user, walletInfo);
  const after = decoded(TypedTypes.GetBeneficiariesResponse, await app.getBeneficiaries(user));
  return { user, metadata, before, created, after };
}

/** A call that asks, then the same call resumed with `new UserInput(id, index, answer)` for each input. */
export async function askedThenAnswered(ask: (resume?: Resume) => Promise<Reply>) {
  const asked = decoded(TypedTypes.Asked, await ask());
  const answer = await ask({
    operationID: asked.operationID,
    userInputs: answersTo(asked.userInputs, sandboxOtp),
  });
  return { asked, answer };
}
