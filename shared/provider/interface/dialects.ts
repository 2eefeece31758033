/**
 * The provider's dialects: one domain (the spec's calls, answers and refusals), two ways of writing
 * it on the wire.
 *   - `spec`: the interface as the spec shows it; the default, and what the sandbox has always spoken.
 *   - `dapi-v2`: the real provider's current API, as its official SDKs send it and its documentation
 *     describes it (docs/provider-v2.md names the source of every point; docs/sandbox.md's
 *     "Provider dialects" table lists them).
 * A dialect is a table: the provider client builds its requests from it, and the sandbox serves each
 * dialect's paths from it. Data and small pure functions only: no I/O, no schemas (the answers'
 * schemas are `responses.ts` and `responses-v2.ts`).
 */
import { periodMs } from './period.ts';

export const dialectNames = ['spec', 'dapi-v2'] as const;
export type DialectName = (typeof dialectNames)[number];

/** Every call a deposit flow makes of the provider. */
export type ProviderCall =
  | 'exchangeToken'
  | 'metadata'
  | 'beneficiariesGet'
  | 'beneficiariesCreate'
  | 'transferCreate'
  | 'transferAutoflow'
  | 'balance'
  | 'operationGet';

/** The calls that are operations: each answers the operation's id, and a question is answered with it. */
export type OperationCall = Exclude<ProviderCall, 'exchangeToken'>;

/** The field an operation is named by, in its answers and in the request that answers its question. */
export type IdField = 'jobID' | 'operationID';

/** The fields of a beneficiary scenario 2 sends on the first transfer in the `top-level` form. */
export type DetailField = 'name' | 'iban' | 'accountNumber';

export interface Dialect {
  name: DialectName;
  paths: Record<ProviderCall, string>;
  idFields: Record<OperationCall, IdField>;
  /** The ids an operation read takes (`operationID`, or `jobID` of the operations named by it). */
  operationReadIds: readonly IdField[];
  /** Whether requests carry `sync` (the spec: required on metadata and beneficiaries). */
  sendsSync: boolean;
  /** Whether optional request strings left empty are left out (as Go's `omitempty` does). */
  leavesOutEmpty: boolean;
  inlineReceiver: {
    /** The key the client sends the inline receiver under. */
    key: 'beneficiary';
    /** The keys a provider of this dialect takes it under (Go's SDK writes `Beneficiary`). */
    accepted: readonly string[];
    /** `required`: the spec's `action` names the payment flow; `none`: no SDK sends a flow's name. */
    action: 'required' | 'none';
  };
  /** Scenario 2's details on the first transfer: a nested `beneficiary`, or top-level fields. */
  scenario2Details:
    | { form: 'nested'; key: 'beneficiary' }
    | { form: 'top-level'; fields: readonly DetailField[] };
  /** What the balance call is asked by: a card (`cardID`), and in v2 also an account (`accountID`). */
  balanceBy: readonly ('cardID' | 'accountID')[];
  /** How an operation read answers: the operation's own answer at the top level, or under `opInfo`. */
  operationAnswer: 'top-level' | 'opInfo';
  /** How a cool-down refusal says when it ends: an instant in `msg`, or a period (`coolDownPeriod`). */
  coolDown: 'instant-in-msg' | 'period';
}

export const specDialect: Dialect = {
  name: 'spec',
  paths: {
    exchangeToken: '/v1/auth/ExchangeToken',
    metadata: '/v1/metadata/accounts/get',
    beneficiariesGet: '/v1/payment/beneficiaries/get',
    beneficiariesCreate: '/v1/payment/beneficiaries/create',
    transferCreate: '/v1/payment/transfer/create',
    transferAutoflow: '/v1/payment/transfer/autoflow',
    balance: '/v2/data/balance/get',
    operationGet: '/v2/operation/get',
  },
  idFields: {
    metadata: 'jobID',
    beneficiariesGet: 'jobID',
    beneficiariesCreate: 'jobID',
    transferCreate: 'operationID',
    transferAutoflow: 'operationID',
    balance: 'operationID',
    operationGet: 'operationID',
  },
  operationReadIds: ['operationID', 'jobID'],
  sendsSync: true,
  leavesOutEmpty: false,
  inlineReceiver: { key: 'beneficiary', accepted: ['beneficiary'], action: 'required' },
  scenario2Details: { form: 'nested', key: 'beneficiary' },
  balanceBy: ['cardID'],
  operationAnswer: 'top-level',
  coolDown: 'instant-in-msg',
};

export const dapiV2Dialect: Dialect = {
  name: 'dapi-v2',
  paths: {
    exchangeToken: '/v2/auth/ExchangeToken',
    metadata: '/v2/metadata/accounts/get',
    beneficiariesGet: '/v2/payment/beneficiaries/get',
    beneficiariesCreate: '/v2/payment/beneficiaries/create',
    transferCreate: '/v2/payment/transfer/create',
    transferAutoflow: '/v2/payment/transfer/autoflow',
    balance: '/v2/data/balance/get',
    operationGet: '/v2/operation/get',
  },
  idFields: {
    metadata: 'operationID',
    beneficiariesGet: 'operationID',
    beneficiariesCreate: 'operationID',
    transferCreate: 'operationID',
    transferAutoflow: 'operationID',
    balance: 'operationID',
    operationGet: 'operationID',
  },
  operationReadIds: ['operationID'],
  sendsSync: false,
  leavesOutEmpty: true,
  inlineReceiver: { key: 'beneficiary', accepted: ['beneficiary', 'Beneficiary'], action: 'none' },
  scenario2Details: { form: 'top-level', fields: ['name', 'iban', 'accountNumber'] },
  balanceBy: ['cardID', 'accountID'],
  operationAnswer: 'opInfo',
  coolDown: 'period',
};

export const dialects: Record<DialectName, Dialect> = { spec: specDialect, 'dapi-v2': dapiV2Dialect };

export function dialectOf(name: DialectName = 'spec'): Dialect {
  return dialects[name];
}

/** The paths both dialects serve: each answers the same in both. */
export function sharedPaths(): string[] {
  const v2 = new Set(Object.values(dapiV2Dialect.paths));
  return [...new Set(Object.values(specDialect.paths))].filter((path) => v2.has(path));
}

/** A body without its empty strings, where the dialect leaves them out; unchanged otherwise. */
export function written<T extends Record<string, unknown>>(dialect: Dialect, body: T): Partial<T> {
  if (!dialect.leavesOutEmpty) return body;
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== '')) as Partial<T>;
}

/**
 * The units a provider writes a period in, as `period.ts` reads them: the spec's (`secs`, `mins`,
 * `hrs`, `days`) and the words a message spells ("after 2 hour(s)").
 */
const unitAliases: Record<string, string> = {
  sec: 'secs',
  secs: 'secs',
  second: 'secs',
  seconds: 'secs',
  min: 'mins',
  mins: 'mins',
  minute: 'mins',
  minutes: 'mins',
  hr: 'hrs',
  hrs: 'hrs',
  hour: 'hrs',
  hours: 'hrs',
  day: 'days',
  days: 'days',
};

/** A period (`{ value, unit }`) in ms; a unit it does not know counts as hours, as `periodMs`'s does. */
export function coolDownMs(period: { value: number; unit: string }): number {
  const unit = period.unit
    .trim()
    .toLowerCase()
    .replace(/\(s\)$/, '');
  return periodMs({ value: period.value, unit: aliasOf(unit) ?? 'hrs' });
}

/** The period a cool-down message names ("...activated for fund transfer after 2 hour(s)"). */
export function periodInMessage(msg: string): { value: number; unit: string } | undefined {
  const match = /\bafter\s+(\d+(?:\.\d+)?)\s*([a-z]+)(?:\(s\))?/i.exec(msg);
  if (!match?.[1] || !match[2] || !aliasOf(match[2].toLowerCase())) return undefined;
  return { value: Number(match[1]), unit: match[2] };
}

function aliasOf(unit: string): string | undefined {
  return Object.hasOwn(unitAliases, unit) ? unitAliases[unit] : undefined;
}
