/**
 * What Dapi's Java and C# SDKs share, as the conformance tests play them (test/support/java-sdk.ts,
 * csharp-sdk.ts; docs/provider-v2.md). Their `DapiApp`s have the same methods with the same
 * arguments (Java `src/main/java/co/dapi/DapiApp.java`, `Payment.java`, `Data.java`, `Metadata.java`,
 * `Auth.java`; C# `src/Dapi/DapiApp.cs`, `src/Dapi/Products/*.cs`), build each body from a request class
 * that extends `BaseRequest` (`appSecret`, `userSecret`, `operationID`, `userInputs`), leave nulls out
 * (Gson's default; Newtonsoft's `NullValueHandling.Ignore`), write `amount` as a 32-bit `float`, and
 * decode into the same response types (Java `response/`, `types/`; C# `Response/`, `Types/`), field
 * for field (their schemas: test/support/typed-sdk-types.ts). What differs (headers, Java's `action`,
 * Java's `coolDownPeriod`) each SDK's module says.
 *
 * Every short form of `DapiApp` (the one without `operationID` and `userInputs`) passes
 * `operationID: ""` and `userInputs: null`; resuming passes both. A caller answers a question with the
 * 3-argument `UserInput(id, index, answer)`: `query` null, left out; `index` always sent, 0 included.
 */
import type * as z from 'zod';
import { appSecret, type Reply } from './in-process-sandbox.ts';
import { decoded, type SdkLogin, sandboxLogin, sandboxOtp, sendV2, wallet } from './sdk-common.ts';
import { type BeneficiaryType, TypedTypes, type UserInputID } from './typed-sdk-types.ts';

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
