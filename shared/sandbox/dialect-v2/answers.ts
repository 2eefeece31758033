/**
 * The sandbox's answers written in the `dapi-v2` dialect (docs/provider-v2.md; docs/sandbox.md
 * "Provider dialects"): the same answers the spec's operations give, at the edge.
 *   - `operationID` names every operation, never `jobID` (D-changelog; every SDK's `BaseResponse`);
 *   - the metadata's integers whole, as Go, Java and C# decode them: a cool-down that is not a whole
 *     number of its unit is written in the largest smaller unit that makes it whole, rounded up (the
 *     bank's own, never shorter); a minimum that is not whole is rounded up to the next whole unit
 *     (never below the bank's);
 *   - a listed beneficiary's `iban` beside its `accountNumber`, and `waiting_for_confirmation` for
 *     the spec's `pending` (the SDKs' enum has no `pending`: C# throws on it);
 *   - a cool-down refusal with `coolDownPeriod {value, unit}` and "after x hour(s)" (D-weberr, D-errors);
 *   - the HTTP statuses D-errors names for the refusals it names.
 */
import type { AccountsMetadata, ListedBeneficiary, Period } from '#shared/provider/interface/schemas';
import type { HttpAnswer } from '../answer.ts';

/** D-errors' statuses for the refusals it names; every other refusal keeps the spec dialect's. */
export const v2Statuses: Record<string, number> = {
  INVALID_MFA: 401,
  INSUFFICIENT_BALANCE: 400,
  BENEFICIARY_COOL_DOWN_PERIOD: 400,
  BENEFICIARY_ALREADY_EXISTS: 400,
};

const units = [
  { unit: 'days', ms: 86_400_000 },
  { unit: 'hrs', ms: 3_600_000 },
  { unit: 'mins', ms: 60_000 },
  { unit: 'secs', ms: 1000 },
] as const;

const words: Record<string, string> = { days: 'day', hrs: 'hour', mins: 'minute', secs: 'second' };

/** A period in whole units: the largest unit at most the period's own in which it is whole, else seconds rounded up. */
export function wholePeriod(ms: number, largest: string = 'days'): Period {
  const from = Math.max(
    0,
    units.findIndex((entry) => entry.unit === largest),
  );
  for (const { unit, ms: size } of units.slice(from)) {
    if (ms % size === 0) return { value: ms / size, unit };
  }
  return { value: Math.ceil(ms / 1000), unit: 'secs' };
}

/** "after 2 hour(s)": the period as D-errors writes it. */
export function periodWords(period: Period): string {
  return `after ${period.value} ${words[period.unit] ?? period.unit}(s)`;
}

/** The metadata with whole numbers where the SDKs decode integers. */
export function v2Metadata(metadata: AccountsMetadata): AccountsMetadata {
  const cooling = metadata.beneficiaryCoolDownPeriod;
  const size = units.find((entry) => entry.unit === cooling.unit)?.ms;
  const beneficiaryCoolDownPeriod =
    Number.isInteger(cooling.value) || size === undefined
      ? cooling
      : wholePeriod(Math.round(cooling.value * size), cooling.unit);
  return {
    ...metadata,
    beneficiaryCoolDownPeriod,
    transactionRange: { ...metadata.transactionRange, value: Math.ceil(metadata.transactionRange.value) },
    transferBounds: metadata.transferBounds.map((bound) => ({ ...bound, minimum: Math.ceil(bound.minimum) })),
  };
}

/** A listed beneficiary as the SDKs declare it: `iban` beside `accountNumber`, their status names. */
export function v2Listed(listed: ListedBeneficiary, iban: string): ListedBeneficiary & { iban: string } {
  const status = listed.status === 'pending' ? 'waiting_for_confirmation' : listed.status;
  return { ...listed, iban, status };
}

/**
 * A refusal of a cool-down as the provider writes it: its period from `now` to the instant the spec's
 * message names, in whole units, and D-errors' message.
 */
export function v2CoolDown(body: Record<string, unknown>, now: number): Record<string, unknown> {
  if (body.type !== 'BENEFICIARY_COOL_DOWN_PERIOD' || typeof body.msg !== 'string') return body;
  const until = Date.parse(/\d{4}-\d\d-\d\dT[\d:.]+Z/.exec(body.msg)?.[0] ?? '');
  if (!Number.isFinite(until)) return body;
  const leftMs = Math.max(1000, until - now);
  const period =
    leftMs >= 3_600_000
      ? { value: Math.ceil(leftMs / 3_600_000), unit: 'hrs' }
      : leftMs >= 60_000
        ? { value: Math.ceil(leftMs / 60_000), unit: 'mins' }
        : { value: Math.ceil(leftMs / 1000), unit: 'secs' };
  const msg = `New beneficiary will be activated for fund transfer ${periodWords(period)}`;
  return { ...body, msg, coolDownPeriod: period };
}

/** Renames `jobID` to `operationID` (a sparse bank's `jobID: null` goes). */
function named(body: Record<string, unknown>): Record<string, unknown> {
  if (!('jobID' in body)) return body;
  const { jobID, ...rest } = body;
  return typeof jobID === 'string' ? { ...rest, operationID: jobID } : rest;
}

/**
 * Any answer of an operation in v2: named by `operationID`, its metadata whole, its beneficiaries with
 * their IBANs (`ibans` by beneficiary id), its cool-down refusal with its period, its status D-errors'.
 */
export function v2Answer(
  answer: HttpAnswer,
  now: number,
  ibans: Map<string, string> = new Map(),
): HttpAnswer {
  let body = named(answer.body);
  if (body.accountsMetadata)
    body = { ...body, accountsMetadata: v2Metadata(body.accountsMetadata as AccountsMetadata) };
  if (Array.isArray(body.beneficiaries)) {
    const listed = body.beneficiaries as ListedBeneficiary[];
    body = { ...body, beneficiaries: listed.map((entry) => v2Listed(entry, ibans.get(entry.id) ?? '')) };
  }
  if (body.status !== 'failed') return { ...answer, body };
  body = v2CoolDown(body, now);
  const status = typeof body.type === 'string' ? (v2Statuses[body.type] ?? answer.status) : answer.status;
  // An operation read answers 200 whatever the operation's outcome: only a refusal's own status moves.
  return { ...answer, status: answer.status >= 400 ? status : answer.status, body };
}

/**
 * The token exchange in v2: the spec's answer plus what Go, Java and C# declare (`tokenID`, `userID`,
 * `operationID`). The user is its connection; the token's id and the exchange's are fresh ids.
 */
export function v2Token(
  answer: HttpAnswer,
  connectionID: string,
  ids: { tokenID: string; operationID: string },
) {
  if (answer.body.success !== true) return answer;
  return { ...answer, body: { ...ids, ...answer.body, userID: connectionID } };
}
