/**
 * Dapi's official Go SDK (dapi-co/dapi-go, docs/provider-v2.md), as the unit tests play it against the
 * in-process sandbox in the `dapi-v2` dialect: its requests as it builds them (written by hand
 * from reading its source: `POST`, `Content-Type: application/json`, `Authorization: Bearer` except on
 * the token exchange, `omitempty` keys left out when empty, never `sync`), and its response types as
 * zod schemas with the field names and JSON types it declares. Go's `encoding/json` fails a whole
 * answer on a field of another type (a fraction in an `int`, a string in a `float64`); the schemas
 * also require every field it reads on the answer that carries it, so nothing it reads is left unfilled.
 */
import * as z from 'zod';
import { appSecret, post, type Reply } from './in-process-sandbox.ts';
import { BeneficiaryStatus, Currency, decoded, int, type SdkLogin, sandboxLogin } from './sdk-common.ts';

export { decoded };

/** `response.UserInput`: `id`, `query`, `answer` strings, `index` int. */
const UserInput = z.object({ id: z.string(), query: z.string(), answer: z.string(), index: int });

/** `response.BaseResponse`, with what each status carries. */
const Base = z.object({
  operationID: z.string().min(1),
  success: z.boolean(),
  status: z.enum(['initialized', 'failed', 'user_input_required', 'done']),
  userInputs: z.array(UserInput).optional(),
  type: z.string().optional(),
  msg: z.string().optional(),
});

export const GoTypes = {
  ExchangeTokenResponse: z.object({
    success: z.boolean(),
    status: z.string(),
    accessToken: z.string().min(1),
    tokenID: z.string().min(1),
    userID: z.string().min(1),
  }),
  /** `response.AccountsMetadata` (no `validators`: all three typed SDKs take it left out). */
  AccountsMetadataResponse: Base.extend({
    accountsMetadata: z.object({
      swiftCode: z.string(),
      sortCode: z.string().nullable(),
      bankName: z.string(),
      branchName: z.string(),
      branchAddress: z.string(),
      address: z.object({ line1: z.string(), line2: z.string(), line3: z.string() }),
      transferBounds: z.array(z.object({ minimum: int, currency: Currency, type: z.string() })),
      beneficiaryCoolDownPeriod: z.object({ value: int, unit: z.string() }),
      transactionRange: z.object({ value: int, unit: z.string() }),
      country: z.object({ code: z.string(), name: z.string() }),
      isCreateBeneficiaryEndpointRequired: z.boolean(),
      willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod: z.boolean(),
    }),
  }),
  /** `response.Beneficiary`: strings; the status one of the SDKs' enum (C# throws on any other). */
  GetBeneficiariesResponse: Base.extend({
    beneficiaries: z.array(
      z.object({
        iban: z.string(),
        accountNumber: z.string(),
        status: BeneficiaryStatus,
        type: z.string(),
        id: z.string().min(1),
        name: z.string(),
      }),
    ),
  }),
  CreateBeneficiaryResponse: Base,
  /** `response.TransferResponse`: `reference`. */
  TransferResponse: Base.extend({ reference: z.string().min(1) }),
  /** `response.BalanceResponse`: `amount` a float64 (a JSON number), `currency`, `accountNumber`. */
  BalanceResponse: Base.extend({
    balance: z.object({ amount: z.number(), currency: Currency, accountNumber: z.string() }),
  }),
  /** A refusal as Java's `CreateTransferResponse` declares it: `coolDownPeriod {value int, unit}`. */
  CoolDownRefusal: Base.extend({
    success: z.literal(false),
    status: z.literal('failed'),
    type: z.literal('BENEFICIARY_COOL_DOWN_PERIOD'),
    msg: z.string(),
    coolDownPeriod: z.object({ value: int.min(1), unit: z.enum(['secs', 'mins', 'hrs', 'days']) }),
  }),
  Asked: Base.extend({ status: z.literal('user_input_required'), userInputs: z.array(UserInput).min(1) }),
} as const;

/** Go's `omitempty`: empty strings, zero numbers and empty arrays left out (one level down too). */
function omitEmpty(body: Record<string, unknown>): Record<string, unknown> {
  const kept = Object.entries(body).filter(
    ([, value]) =>
      value !== '' && value !== 0 && !(Array.isArray(value) && value.length === 0) && value !== undefined,
  );
  return Object.fromEntries(kept);
}

/** A user as the Go SDK holds it (`dapi.App` + its `userSecret` and token). */
export interface GoUser extends SdkLogin {
  accessToken: string;
}

/** A fresh sandbox user, its access code exchanged at `/v2/auth/ExchangeToken` as Go's `ExchangeToken`. */
export async function goUser(bankId: string): Promise<GoUser & { exchanged: Reply }> {
  const login = await sandboxLogin(bankId);
  // Go `request.ExchangeTokenRequest`: three strings, always sent; no Authorization header.
  const { accessCode, connectionID } = login;
  const exchanged = await post('/v2/auth/ExchangeToken', { appSecret, accessCode, connectionID });
  return { ...login, accessToken: exchanged.body.accessToken, exchanged };
}

/**
 * A call as `request.DapiRequest` sends it: `BaseRequest` (`appSecret`, `userSecret` always;
 * `operationID` and `userInputs` `omitempty`) plus the call's own keys, Go's `omitempty` applied.
 */
export function goCall(user: GoUser, path: string, body: Record<string, unknown> = {}) {
  const sent = { appSecret, userSecret: user.userSecret, ...omitEmpty(body) };
  return post(`/v2${path}`, sent, { authorization: `Bearer ${user.accessToken}` });
}

/** Go's `UserInput` answers: `index` left out when 0, `query` left out when empty. */
export function goAnswers(asked: { id: string; index: number }[], answer = '123456') {
  return asked.map((input) => omitEmpty({ id: input.id, index: input.index, answer }));
}

/** The wallet as `request.CreateBeneficiaryInfo` sends it: no `sortCode` in Go; address lines omitempty. */
export const goWallet = {
  name: 'Acme Wallet LLC',
  nickname: '',
  iban: 'AE070331234567890123456',
  accountNumber: '1234567890123456',
  swiftCode: 'WALTAEAD',
  type: 'local',
  country: 'AE',
  bankName: 'Wallet Bank',
  branchName: '',
  branchAddress: '',
  phoneNumber: '',
  routingNumber: '',
  address: { line1: 'Wallet Street 1' },
};
