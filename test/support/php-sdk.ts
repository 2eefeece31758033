/**
 * Dapi's official PHP SDK (dapi-co/dapi-php at dd8cdea, library 1.3.0; docs/provider-v2.md), as the unit
 * tests play it against the in-process sandbox in the `dapi-v2` dialect. Its requests are written
 * by hand from reading `src/Products/DapiRequester.php` (`POST https://api.dapi.com/v2<endpoint>`, the
 * headers `User-Agent: Dapi Connect PHP`, `Content-Type: application/json`, `X-Dapi-Library: dapi-php`,
 * `X-Dapi-Library-Version: 1.3.0`; `Authorization: Bearer` and `appSecret`, `userSecret` added last by
 * `makeAuthenicatedRequest`; the body `json_encode`d) and the products' methods in `src/Products/
 * Auth.php`, `Metadata.php`, `Payment.php`, `Data.php`, `Operation.php`: every call but the exchange
 * and the operation read sends `userInputs` (`[]` by default) and `operationID` (`""` by default), and
 * `createBeneficiary` and `transferAutoflow` post to `/payment/transfer/create` (the SDK's own paths).
 *
 * PHP declares no response type: `json_decode($body, true)` hands the caller an array, and Guzzle 7
 * throws on any 4xx or 5xx before that. Its response types are the README's tables ("BaseResponse" and
 * each method's "Response"), with the keys as the wire and the other SDKs spell them (the README writes
 * `AccessToken`, `Balance`, `Beneficiaries` capitalised; `json_decode` keeps the wire's `accessToken`).
 */
import * as z from 'zod';
import { appSecret, type Reply } from './in-process-sandbox.ts';
import { APIStatus, decoded, int, type SdkLogin, sandboxLogin, sendV2 } from './sdk-common.ts';

const headers = {
  'user-agent': 'Dapi Connect PHP',
  'content-type': 'application/json',
  'x-dapi-library': 'dapi-php',
  'x-dapi-library-version': '1.3.0',
};

/** The README's `userInput Object`: `id`, `query`, `answer` strings, `index` an int. */
const UserInput = z.object({ id: z.string(), query: z.string(), index: int, answer: z.string() });

/**
 * The README's BaseResponse: "all the responses have" `operationID`, `success`, `status` (the four);
 * `userInputs` only when `user_input_required`, `type` and `msg` only when `failed`.
 */
const Base = z.object({
  operationID: z.string().min(1),
  success: z.boolean(),
  status: APIStatus,
  userInputs: z.array(UserInput).optional(),
  type: z.string().optional(),
  msg: z.string().optional(),
});
const Done = Base.extend({ success: z.literal(true), status: z.literal('done') });
const record = z.record(z.string(), z.unknown());

export const PhpTypes = {
  /** `auth->exchangeToken`: `AccessToken` "only if the status is `done`". */
  ExchangeToken: Done.extend({ accessToken: z.string().min(1) }),
  /** `metadata->getAccounts`: no table of its own; the metadata as an associative array. */
  AccountsMetadata: Done.extend({ accountsMetadata: record }),
  /** `payment->getBeneficiaries`: `Beneficiaries`, "an array containing the beneficiary information". */
  Beneficiaries: Done.extend({ beneficiaries: z.array(record) }),
  /** `payment->createTransfer`, `payment->transferAutoflow`: `reference`, "returned by the bank". */
  Transfer: Done.extend({ reference: z.string().min(1) }),
  /** `data->getBalance`: `Balance`, an associative array. */
  Balance: Done.extend({ balance: record }),
  /**
   * `operation->getOperationStatus`: no README table; D-opget's answer: `status`, `success`, and
   * `opInfo` {`status` (the four), `type` (the path called), `startDate`, `errorType` when failed}.
   */
  Operation: z.object({
    success: z.boolean(),
    status: APIStatus,
    opInfo: z.object({
      status: APIStatus,
      type: z.string().min(1),
      startDate: z.string().min(1),
      errorType: z.string().optional(),
    }),
  }),
  Asked: Base.extend({ status: z.literal('user_input_required'), userInputs: z.array(UserInput).min(1) }),
  /**
   * A refusal, which Guzzle throws as `ClientException`; its body, read from the exception, is the
   * envelope. A request refused before any operation began names none (guess: no source says).
   */
  Refusal: Base.extend({
    operationID: z.string().min(1).optional(),
    success: z.literal(false),
    status: z.literal('failed'),
    type: z.string().min(1),
    msg: z.string(),
  }),
} as const;

/** An answer as a PHP caller gets it: a 2xx (Guzzle throws on any other), decoded against `schema`. */
export function phpDecoded<S extends z.ZodType>(schema: S, reply: Reply): z.infer<S> {
  if (reply.status < 200 || reply.status > 299) {
    throw new Error(`Guzzle throws on ${reply.status}: ${JSON.stringify(reply.body).slice(0, 500)}`);
  }
  return decoded(schema, reply);
}

/** A user as a PHP caller holds it: Connect's login, and the token `exchangeToken` answered. */
export interface PhpUser extends SdkLogin {
  accessToken: string;
  exchanged: Reply;
}

/** `$userInputs = []`, `$operationID = ""`: the defaults of every method that takes them. */
interface Resume {
  userInputs?: unknown[];
  operationID?: string;
}

/** `makeAuthenicatedRequest`: the call's `$data`, then `appSecret` and `userSecret`; `Authorization: Bearer`. */
function authenticated(user: PhpUser, endpoint: string, data: Record<string, unknown>) {
  const body = { ...data, appSecret, userSecret: user.userSecret };
  return sendV2(endpoint, JSON.stringify(body), { ...headers, authorization: `Bearer ${user.accessToken}` });
}

/** `$body['userInputs']`, `$body['operationID']` as every method but the exchange and the read sets them. */
const resumed = ({ userInputs = [], operationID = '' }: Resume = {}) => ({ userInputs, operationID });

/** The methods of `DapiClient`'s products, each as its source builds the request. */
export const php = {
  /** `auth->exchangeToken`: `appSecret`, `accessCode`, `connectionID`; no `Authorization`. */
  exchangeToken: (login: SdkLogin) =>
    sendV2(
      '/auth/ExchangeToken',
      JSON.stringify({ appSecret, accessCode: login.accessCode, connectionID: login.connectionID }),
      headers,
    ),
  getAccountsMetadata: (user: PhpUser, resume?: Resume) =>
    authenticated(user, '/metadata/accounts/get', resumed(resume)),
  getBeneficiaries: (user: PhpUser, resume?: Resume) =>
    authenticated(user, '/payment/beneficiaries/get', resumed(resume)),
  /** Posts `$beneficiaryData` to `/payment/transfer/create` (`Payment.php`), not to the beneficiaries' path. */
  createBeneficiary: (user: PhpUser, beneficiaryData: Record<string, unknown>, resume?: Resume) =>
    authenticated(user, '/payment/transfer/create', { ...beneficiaryData, ...resumed(resume) }),
  createTransfer: (user: PhpUser, transferData: Record<string, unknown>, resume?: Resume) =>
    authenticated(user, '/payment/transfer/create', { ...transferData, ...resumed(resume) }),
  /** Posts `$transferAutoFlowData` to `/payment/transfer/create` too (`Payment.php`). */
  transferAutoflow: (user: PhpUser, transferAutoFlowData: Record<string, unknown>, resume?: Resume) =>
    authenticated(user, '/payment/transfer/create', { ...transferAutoFlowData, ...resumed(resume) }),
  getBalance: (user: PhpUser, accountID: string, resume?: Resume) =>
    authenticated(user, '/data/balance/get', { ...resumed(resume), accountID }),
  getCardBalance: (user: PhpUser, cardID: string, resume?: Resume) =>
    authenticated(user, '/data/balance/get', { ...resumed(resume), cardID }),
  /** `operation->getOperationStatus`: `appKey` and `operationID`, no `userInputs`. */
  getOperationStatus: (user: PhpUser, operationID: string, appKey: string) =>
    authenticated(user, '/operation/get', { appKey, operationID }),
};

/** A fresh sandbox user at `bankId`, its access code exchanged as `auth->exchangeToken` does. */
export async function phpUser(bankId: string): Promise<PhpUser> {
  const login = await sandboxLogin(bankId);
  const exchanged = await php.exchangeToken(login);
  return { ...login, accessToken: exchanged.body.accessToken, exchanged };
}

/** The answers a PHP caller passes back: the asked inputs as decoded, `answer` filled in. */
export function phpAnswers(asked: z.infer<typeof PhpTypes.Asked>['userInputs'], answer: string) {
  return asked.map((input) => ({ ...input, answer }));
}
