/**
 * The kinds of provider fault a chaos run injects (the sandbox's fault rules): which provider call
 * each hits, at which banks it applies, its rule, and its weight in the random choice. Every call of
 * the flow fails before and after the bank acts, is refused (a 429, with and without naming its
 * operation; a 401; a transfer refused), or is slowed; `faults.ts` chooses among them per user.
 */

import { findBank } from '#shared/sandbox/catalog';
import type { FaultRule, ProviderFault } from './faults.ts';
import type { Bank } from './plan.ts';
import type { Random } from './random.ts';

/** The provider calls of a deposit's flow, which a fault rule names. */
const paths = {
  metadata: '/v1/metadata/accounts/get',
  listBeneficiaries: '/v1/payment/beneficiaries/get',
  createBeneficiary: '/v1/payment/beneficiaries/create',
  transfer: '/v1/payment/transfer/create',
  autoflow: '/v1/payment/transfer/autoflow',
  /** The transfer operation read back (`reconcile`), at banks that take beneficiaries. */
  operation: '/v2/operation/get',
} as const;

/** A kind of provider fault: its name, whether the bank has the call it hits, its rule, its weight. */
export interface FaultKind {
  kind: string;
  applies(bank: Bank): boolean;
  rule(random: Random, bank: Bank, timeoutMs: number): FaultRule;
  weight: number;
  /** Its firing ends the deposit it hits: a user holds one such kind, so that each can fire. */
  ends?: true;
}

const anyBank = () => true;
const withBeneficiaries = (bank: Bank) => bank.beneficiaries;
const status5xx = (random: Random) => random.pick([500, 502, 503] as const);
const transferPath = (bank: Bank) => (bank.beneficiaries ? paths.transfer : paths.autoflow);
/** Whether the bank asks its caller a question on the transfer (so the transfer is answered). */
const asksOnTransfer = (bank: Bank) => (findBank(bank.bankId)?.asks.transfer?.length ?? 0) > 0;

/** Every provider call of the flow, failing before and after the bank acts. */
export const faultKinds: FaultKind[] = [
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
        path: paths.createBeneficiary,
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
        path: paths.createBeneficiary,
        outcome: 'timeout',
        timeoutMs,
        phase,
        times: 1,
      }),
      weight: 1,
    },
    {
      kind: `transfer-5xx-${phase}`,
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
      path: paths.listBeneficiaries,
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
      path: paths.listBeneficiaries,
      outcome: 'timeout',
      timeoutMs,
      times: 1,
    }),
    weight: 0.5,
  },
  {
    // Reads of the transfer operation lost: read again, done in the end.
    kind: 'operation-read-lost',
    applies: withBeneficiaries,
    rule: (random, _bank, timeoutMs) =>
      random.chance(0.5)
        ? { path: paths.operation, outcome: 'error', status: status5xx(random), times: random.int(1, 3) }
        : { path: paths.operation, outcome: 'timeout', timeoutMs, times: 1 },
    weight: 1,
  },
  // Refusals (the sandbox's `outcome: "refusal"`), before effect: a 429 is "later" wherever it comes,
  // and a refusal of the outcome read names no operation: neither is the bank refusing the deposit.
  {
    kind: 'operation-read-429',
    applies: withBeneficiaries,
    rule: (random) => ({
      path: paths.operation,
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
    applies: withBeneficiaries,
    rule: (random) => ({
      path: paths.operation,
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
    applies: withBeneficiaries,
    rule: () => ({ path: paths.operation, outcome: 'refusal', status: 401, type: 'UNAUTHORIZED', times: 1 }),
    weight: 0.5,
  },
  {
    // A provider that echoes the operation's id in every failed envelope: a refusal of the read that
    // names the transfer's operation, with a type that does not refuse a transfer. Read again, never
    // "nothing moved" (the transfer is done at the bank).
    kind: 'operation-read-refused-named',
    applies: withBeneficiaries,
    rule: (random) => ({
      path: paths.operation,
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
      path: paths.listBeneficiaries,
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
      path: paths.createBeneficiary,
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
    applies: withBeneficiaries,
    rule: () => ({ path: paths.operation, outcome: 'pending', times: 40 }),
    weight: 0.3,
  },
  {
    // The bank changed mid-run: its cool-down of our beneficiary started again. The transfer is
    // refused (the message names no instant: a minute's wait), and our record's cool-down corrected.
    kind: 'bank-cool-down-again',
    applies: withBeneficiaries,
    rule: () => ({
      path: paths.transfer,
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
      path: paths.transfer,
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
      path: paths.transfer,
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
    rule: () => ({ path: paths.metadata, outcome: 'error', status: 503, times: 60 }),
    weight: 0.5,
  },
];

/** The bank down for a user: every metadata read fails, past the retry limit (a source that must fail). */
export function bankDown(): ProviderFault {
  return { kind: 'metadata-down', rule: { path: paths.metadata, outcome: 'error', status: 503, times: 60 } };
}
