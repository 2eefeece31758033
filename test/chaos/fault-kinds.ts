/**
 * The kinds of provider fault a chaos run injects (the sandbox's fault rules): which provider call
 * each hits, at which banks it applies, its rule, and its weight in the random choice. Every call of
 * the flow fails before and after the bank acts, is refused (a 429, with and without naming its
 * operation; a 401; a transfer refused), or is slowed; `faults.ts` chooses among them per user. A
 * rule names the path of its call in the dialect the orchestrator speaks (`faultKindsFor`): the
 * sandbox matches a rule by the path it was called at.
 */

import type { Dialect } from '#shared/provider/interface/dialects';
import { findBank } from '#shared/sandbox/catalog';
import type { FaultRule, ProviderFault } from './faults.ts';
import type { Bank } from './plan.ts';
import type { Random } from './random.ts';

/** A kind of provider fault: its name, whether the bank has the call it hits, its rule, its weight. */
export interface FaultKind {
  kind: string;
  applies(bank: Bank): boolean;
  rule(random: Random, bank: Bank, timeoutMs: number): FaultRule;
  weight: number;
  /**
   * Its firing ends the deposit it hits, at its transfer: refused, or its outcome unknown (a 5xx or
   * a timeout). A user holds one such kind, so that each can fire.
   */
  ends?: true;
  /**
   * It hits the transfer's operation read back (`reconcile`), which comes after the transfer: only on
   * a user with a deposit sure to get there, past a kind that `ends` (`faults.ts`). In a dialect that
   * sends no `sync`, its user's bank takes its time over transfers, so that they are read back
   * (`plan.ts`).
   */
  readsBack?: true;
}

const anyBank = () => true;
const withBeneficiaries = (bank: Bank) => bank.beneficiaries;
const status5xx = (random: Random) => random.pick([500, 502, 503] as const);
/** Whether the bank asks its caller a question on the transfer (so the transfer is answered). */
const asksOnTransfer = (bank: Bank) => (findBank(bank.bankId)?.asks.transfer?.length ?? 0) > 0;

/**
 * Every kind, its rules naming the paths of `dialect` (the orchestrator's). The kinds are the same in
 * every dialect; only the paths differ (the operation read, `/v2/operation/get`, is shared).
 */
export function faultKindsFor(dialect: Dialect): FaultKind[] {
  return kindsOn(dialect.paths);
}

/** The rule of `metadata-down`: every metadata read fails, past the retry limit. */
const metadataDown = (paths: Dialect['paths']): FaultRule => ({
  path: paths.metadata,
  outcome: 'error',
  status: 503,
  times: 60,
});

/**
 * Every provider call of the flow, failing before and after the bank acts, at its path in `paths`;
 * the transfer's operation read back (`reconcile`) only at banks that take beneficiaries.
 */
function kindsOn(paths: Dialect['paths']): FaultKind[] {
  const transferPath = (bank: Bank) => (bank.beneficiaries ? paths.transferCreate : paths.transferAutoflow);
  return [
    ...(['before', 'after'] as const).flatMap((phase): FaultKind[] => [
      {
        kind: `metadata-5xx-${phase}`,
        applies: anyBank,
        rule: (random) => ({
          path: paths.metadata,
          outcome: 'error',
          status: status5xx(random),
          phase,
          times: random.int(1, 3),
        }),
        weight: 2,
      },
      {
        kind: `metadata-timeout-${phase}`,
        applies: anyBank,
        rule: (_random, _bank, timeoutMs) => ({
          path: paths.metadata,
          outcome: 'timeout',
          timeoutMs,
          phase,
          times: 1,
        }),
        weight: 1,
      },
      {
        kind: `create-beneficiary-5xx-${phase}`,
        applies: withBeneficiaries,
        rule: (random) => ({
          path: paths.beneficiariesCreate,
          outcome: 'error',
          status: status5xx(random),
          phase,
          times: 1,
        }),
        weight: 1,
      },
      {
        kind: `create-beneficiary-timeout-${phase}`,
        applies: withBeneficiaries,
        rule: (_random, _bank, timeoutMs) => ({
          path: paths.beneficiariesCreate,
          outcome: 'timeout',
          timeoutMs,
          phase,
          times: 1,
        }),
        weight: 1,
      },
      {
        kind: `transfer-5xx-${phase}`,
        ends: true,
        applies: anyBank,
        rule: (random, bank) => ({
          path: transferPath(bank),
          outcome: 'error',
          status: status5xx(random),
          phase,
          times: 1,
        }),
        weight: 1.5,
      },
      {
        kind: `transfer-timeout-${phase}`,
        ends: true,
        applies: anyBank,
        rule: (_random, bank, timeoutMs) => ({
          path: transferPath(bank),
          outcome: 'timeout',
          timeoutMs,
          phase,
          times: 1,
        }),
        weight: 1.5,
      },
    ]),
    {
      kind: 'list-5xx',
      applies: withBeneficiaries,
      rule: (random) => ({
        path: paths.beneficiariesGet,
        outcome: 'error',
        status: status5xx(random),
        times: random.int(1, 2),
      }),
      weight: 1,
    },
    {
      kind: 'list-timeout',
      applies: withBeneficiaries,
      rule: (_random, _bank, timeoutMs) => ({
        path: paths.beneficiariesGet,
        outcome: 'timeout',
        timeoutMs,
        times: 1,
      }),
      weight: 0.5,
    },
    {
      // Reads of the transfer operation lost: read again, done in the end.
      kind: 'operation-read-lost',
      readsBack: true,
      applies: withBeneficiaries,
      rule: (random, _bank, timeoutMs) =>
        random.chance(0.5)
          ? { path: paths.operationGet, outcome: 'error', status: status5xx(random), times: random.int(1, 3) }
          : { path: paths.operationGet, outcome: 'timeout', timeoutMs, times: 1 },
      weight: 1,
    },
    // Refusals (the sandbox's `outcome: "refusal"`), before effect: a 429 is "later" wherever it comes,
    // and a refusal of the outcome read names no operation: neither is the bank refusing the deposit.
    {
      kind: 'operation-read-429',
      readsBack: true,
      applies: withBeneficiaries,
      rule: (random) => ({
        path: paths.operationGet,
        outcome: 'refusal',
        status: 429,
        type: 'TOO_MANY_REQUESTS',
        retryAfterSeconds: 1,
        times: random.int(1, 3),
      }),
      weight: 1,
    },
    {
      // ... and one that names the operation read: still the read's "later", never the transfer's end.
      kind: 'operation-read-429-named',
      readsBack: true,
      applies: withBeneficiaries,
      rule: (random) => ({
        path: paths.operationGet,
        outcome: 'refusal',
        status: 429,
        type: 'TOO_MANY_REQUESTS',
        retryAfterSeconds: 1,
        namesOperation: true,
        times: random.int(1, 2),
      }),
      weight: 0.5,
    },
    {
      kind: 'operation-read-401',
      readsBack: true,
      applies: withBeneficiaries,
      rule: () => ({
        path: paths.operationGet,
        outcome: 'refusal',
        status: 401,
        type: 'UNAUTHORIZED',
        times: 1,
      }),
      weight: 0.5,
    },
    {
      // A provider that echoes the operation's id in every failed envelope: a refusal of the read that
      // names the transfer's operation, with a type that does not refuse a transfer. Read again, never
      // "nothing moved" (the transfer is done at the bank).
      kind: 'operation-read-refused-named',
      readsBack: true,
      applies: withBeneficiaries,
      rule: (random) => ({
        path: paths.operationGet,
        outcome: 'refusal',
        ...random.pick([
          { status: 409, type: 'OPERATION_MISMATCH' },
          { status: 400, type: 'INVALID_ACCESS_CODE' },
          { status: 401, type: 'UNAUTHORIZED' },
          { status: 403, type: 'BAD_REQUEST' },
        ] as const),
        namesOperation: true,
        times: random.int(1, 2),
      }),
      weight: 0.5,
    },
    {
      kind: 'transfer-429',
      applies: anyBank,
      rule: (random, bank) => ({
        path: transferPath(bank),
        outcome: 'refusal',
        status: 429,
        type: 'TOO_MANY_REQUESTS',
        times: random.int(1, 2),
      }),
      weight: 1,
    },
    {
      kind: 'list-429',
      applies: withBeneficiaries,
      rule: (random) => ({
        path: paths.beneficiariesGet,
        outcome: 'refusal',
        status: 429,
        type: 'TOO_MANY_REQUESTS',
        retryAfterSeconds: 1,
        times: random.int(1, 2),
      }),
      weight: 0.5,
    },
    {
      kind: 'create-beneficiary-429',
      applies: withBeneficiaries,
      rule: () => ({
        path: paths.beneficiariesCreate,
        outcome: 'refusal',
        status: 429,
        type: 'TOO_MANY_REQUESTS',
        namesOperation: true,
        times: 1,
      }),
      weight: 0.5,
    },
    {
      kind: 'metadata-429',
      applies: anyBank,
      rule: (random) => ({
        path: paths.metadata,
        outcome: 'refusal',
        status: 429,
        type: 'TOO_MANY_REQUESTS',
        times: random.int(1, 2),
      }),
      weight: 1,
    },
    {
      // ... naming the refused operation (a new one, failed): the same end.
      kind: 'transfer-refused-named',
      ends: true,
      applies: anyBank,
      rule: (_random, bank) => ({
        path: transferPath(bank),
        outcome: 'refusal',
        status: 422,
        type: 'INSUFFICIENT_BALANCE',
        namesOperation: true,
        times: 1,
      }),
      weight: 0.3,
    },
    {
      // The bank refuses the transfer outright: the deposit fails with its type, nothing moved.
      kind: 'transfer-refused',
      ends: true,
      applies: anyBank,
      rule: (_random, bank) => ({
        path: transferPath(bank),
        outcome: 'refusal',
        status: 422,
        type: 'INSUFFICIENT_BALANCE',
        times: 1,
      }),
      weight: 0.5,
    },
    {
      // The bank keeps the transfer `initialized` past the poll limit (the chaos stack's: a few reads):
      // its outcome is given up as unknown, and resolved from the ledger after the run.
      kind: 'transfer-pending-past-limit',
      readsBack: true,
      applies: withBeneficiaries,
      rule: () => ({ path: paths.operationGet, outcome: 'pending', times: 40 }),
      weight: 0.3,
    },
    {
      // The bank changed mid-run: its cool-down of our beneficiary started again. The transfer is
      // refused (the message names no instant: a minute's wait), and our record's cool-down corrected.
      kind: 'bank-cool-down-again',
      applies: withBeneficiaries,
      rule: () => ({
        path: paths.transferCreate,
        outcome: 'refusal',
        status: 422,
        type: 'BENEFICIARY_COOL_DOWN_PERIOD',
        times: 1,
      }),
      weight: 0.4,
    },
    {
      // ... our beneficiary deleted at the bank: the deposit registers it again (once).
      kind: 'bank-beneficiary-gone',
      // Not where the list masks accounts: the refusal leaves the beneficiary at the bank, where the
      // registration again finds it existing and, masked, cannot tell it from another (a deletion would).
      // Nor at the day-long bank: registered again, it waits another day, past the clock's one jump.
      applies: (bank) => bank.beneficiaries && !bank.longCoolDown && !findBank(bank.bankId)?.masksAccounts,
      rule: () => ({
        path: paths.transferCreate,
        outcome: 'refusal',
        status: 404,
        type: 'INVALID_BENEFICIARY_ID',
        times: 1,
      }),
      weight: 0.4,
    },
    {
      // ... its minimum raised: the transfer refused, the remembered metadata forgotten.
      kind: 'bank-minimum-raised',
      ends: true,
      applies: anyBank,
      rule: (_random, bank) => ({
        path: transferPath(bank),
        outcome: 'refusal',
        status: 422,
        type: 'AMOUNT_BELOW_MINIMUM',
        times: 1,
      }),
      weight: 0.3,
    },
    {
      // ... our beneficiary's details no longer match: the deposit fails, our record is forgotten.
      kind: 'bank-details-mismatch',
      ends: true,
      applies: withBeneficiaries,
      rule: () => ({
        path: paths.transferCreate,
        outcome: 'refusal',
        status: 422,
        type: 'BENEFICIARY_DETAILS_MISMATCH',
        times: 1,
      }),
      weight: 0.3,
    },
    {
      // Spent answers at the transfer: the answered submission hears INVALID_OPERATION_ID, before the
      // bank ran it (the question still waits) or after (the money moved, as when a proxy retried the
      // request). Only the operation's own record tells: it is read, never taken as "nothing moved".
      kind: 'transfer-answers-spent',
      applies: asksOnTransfer,
      rule: (random, bank) => ({
        path: transferPath(bank),
        outcome: 'refusal',
        status: 404,
        type: 'INVALID_OPERATION_ID',
        phase: random.pick(['before', 'after'] as const),
        answered: true,
        times: 1,
      }),
      weight: 0.6,
    },
    {
      // The bank is down for the user: every metadata read fails, past the retry limit.
      kind: 'metadata-down',
      applies: anyBank,
      rule: () => metadataDown(paths),
      weight: 0.5,
    },
  ];
}

/** The bank down for a user: every metadata read fails, past the retry limit (a source that must fail). */
export function bankDown(dialect: Dialect): ProviderFault {
  return { kind: 'metadata-down', rule: metadataDown(dialect.paths) };
}

/** Whether a user's fault hits the transfer's operation read back (a kind that `readsBack`). */
export function readsBack(fault: ProviderFault, dialect: Dialect): boolean {
  return faultKindsFor(dialect).some((kind) => kind.kind === fault.kind && kind.readsBack);
}
