/**
 * The plan of a chaos run, a pure function of the seed, the number of deposits and the sandbox's
 * banks: the users (each on a bank, with one or several deposits), each deposit's amount and key,
 * who answers the bank's questions and who never does, and the faults each user's connection
 * suffers (the sandbox's fault rules and the local crash points). The harness carries it out; the
 * audit judges the outcome against it.
 */

import { localWallets } from '#infra/local/wallets';
import { type CurrencyCode, fromMinorUnits, isCurrencyCode, toMinorUnits } from '#shared/money';
import { periodMs } from '#shared/spec/period';
import type { AccountsMetadata } from '#shared/spec/schemas';
import { type Random, randomStream } from './random.ts';

export const paths = {
  metadata: '/v1/metadata/accounts/get',
  listBeneficiaries: '/v1/payment/beneficiaries/get',
  createBeneficiary: '/v1/payment/beneficiaries/create',
  transfer: '/v1/payment/transfer/create',
  autoflow: '/v1/payment/transfer/autoflow',
} as const;

export type CrashPoint =
  | 'before-provider-call'
  | 'after-provider-call'
  | 'before-state-write'
  | 'after-state-write'
  | 'lost-write-answer';

export const crashPointNames: readonly CrashPoint[] = [
  'before-provider-call',
  'after-provider-call',
  'before-state-write',
  'after-state-write',
  'lost-write-answer',
];

export type Step = 'resolve-bank' | 'ensure-beneficiary' | 'wait-cooldown' | 'transfer';
export const steps: readonly Step[] = ['resolve-bank', 'ensure-beneficiary', 'wait-cooldown', 'transfer'];

export interface FaultRule {
  path?: string;
  latencyMs?: number;
  outcome?: 'timeout' | 'error';
  status?: 500 | 502 | 503;
  phase?: 'before' | 'after';
  timeoutMs?: number;
  times?: number;
}

export interface ProviderFault {
  /** What it is, for the figures: `transfer-timeout-after`, `metadata-down`, ... */
  kind: string;
  rule: FaultRule;
}

export interface CrashRule {
  point: CrashPoint;
  /** Only at this step; at any step when absent. */
  step?: Step;
  times: number;
}

export interface Bank {
  bankId: string;
  metadata: AccountsMetadata;
  currency: CurrencyCode;
  walletAccountID: string;
  /** The bank's minimum for a transfer from another bank (the wallet's), in minor units. */
  minimumMinor: number;
  coolDownMs: number;
  /** Whether the bank wants the wallet registered as a beneficiary. */
  beneficiaries: boolean;
  hidesNewBeneficiaries: boolean;
  /** A cool-down longer than any run: deposits there wait, deliberately, with a wake-up armed. */
  longCoolDown: boolean;
}

export interface PlannedDeposit {
  /** Its index in the run, 0 to N - 1. */
  index: number;
  userIndex: number;
  idempotencyKey: string;
  amountMinor: number;
  /** In major units, as the API takes it. */
  amount: number;
  /** Below the bank's minimum: must fail AMOUNT_BELOW_MINIMUM, nothing sent. */
  belowMinimum: boolean;
  /** After the user is ready; the user's deposits overlap. */
  startDelayMs: number;
  /** `never`: the bank's questions go unanswered, deliberately, until they expire. */
  answers: 'answer' | 'never';
  answerDelayMs: number;
  /** Copies of its step messages sent straight to the step queues: duplicated, delayed, re-ordered. */
  duplicates: boolean;
  /** The same create request again, at once: it must answer the same deposit. */
  repeatCreate: boolean;
  /** The webhook receiver refuses this many of its deliveries. */
  webhookRefusals: number;
}

export interface PlannedUser {
  index: number;
  bank: Bank;
  providerFaults: ProviderFault[];
  crashes: CrashRule[];
  deposits: PlannedDeposit[];
}

export interface ChaosPlan {
  seed: number;
  banks: Bank[];
  users: PlannedUser[];
  deposits: PlannedDeposit[];
}

export interface PlanSettings {
  deposits: number;
  seed: number;
  /** The orchestrator's provider timeout: a timeout fault hangs past it. */
  providerTimeoutMs: number;
}

/** The banks of GET /sandbox/banks, with what the plan needs to know of each. */
export function banksOf(catalog: { bankId: string; accountsMetadata: AccountsMetadata }[]): Bank[] {
  return catalog.map(({ bankId, accountsMetadata }) => {
    const code = accountsMetadata.transferBounds[0]?.currency.code ?? 'AED';
    if (!isCurrencyCode(code)) throw new Error(`bank ${bankId}: unknown currency ${code}`);
    const wallet = localWallets.find((candidate) => candidate.currency === code);
    if (!wallet) throw new Error(`no local wallet account in ${code} for bank ${bankId}`);
    const local = accountsMetadata.transferBounds.find(
      (bound) => bound.type === 'local' && bound.currency.code === code,
    );
    const coolDownMs = periodMs(accountsMetadata.beneficiaryCoolDownPeriod);
    return {
      bankId,
      metadata: accountsMetadata,
      currency: code,
      walletAccountID: wallet.id,
      minimumMinor: toMinorUnits(local?.minimum ?? 0, code),
      coolDownMs,
      beneficiaries: accountsMetadata.isCreateBeneficiaryEndpointRequired,
      hidesNewBeneficiaries: !accountsMetadata.willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod,
      longCoolDown: coolDownMs >= 3_600_000,
    };
  });
}

/** Shares of the run: how often each thing happens. */
const share = {
  /** Users with a single deposit; the others have 2 to 6. */
  singleDeposit: 0.3,
  providerFaults: 0.3,
  latency: 0.25,
  crashes: 0.3,
  /** Of the deposits at a bank that asks questions. */
  neverAnswered: 0.12,
  belowMinimum: 0.02,
  duplicates: 0.2,
  repeatCreate: 0.1,
  webhookRefusals: 0.1,
};

export function planRun(settings: PlanSettings, banks: Bank[]): ChaosPlan {
  const { seed } = settings;
  const random = randomStream(seed, 'plan');
  // Every bank has users; a bank whose cool-down outlasts the run has fewer (its deposits only wait).
  const weights = banks.map((bank) => [bank, bank.longCoolDown ? 0.3 : 1] as const);
  const order = random.shuffle(banks);
  const users: PlannedUser[] = [];
  const deposits: PlannedDeposit[] = [];
  const coverage: Coverage = {
    faultKinds: new Set(faultKinds.map((kind) => kind.kind)),
    crashPoints: new Set(crashPointNames),
  };
  while (deposits.length < settings.deposits) {
    const index = users.length;
    const userRandom = randomStream(seed, 'user', index);
    const bank = index < order.length ? (order[index] as Bank) : userRandom.weighted(weights);
    const wanted = userRandom.chance(share.singleDeposit) ? 1 : userRandom.int(2, 6);
    const count = Math.min(wanted, settings.deposits - deposits.length);
    const amounts = new Set<number>();
    const userDeposits: PlannedDeposit[] = [];
    for (let n = 0; n < count; n += 1) {
      const depositIndex = deposits.length + n;
      const belowMinimum = userRandom.chance(share.belowMinimum);
      let amountMinor: number;
      // Distinct amounts per user: each transfer in the user's ledger names its deposit by amount.
      do {
        amountMinor = belowMinimum
          ? userRandom.int(1, Math.max(1, bank.minimumMinor - 1))
          : bank.minimumMinor + userRandom.int(0, 40 * Math.max(bank.minimumMinor, 100));
      } while (amounts.has(amountMinor));
      amounts.add(amountMinor);
      const asks = bankAsks(bank);
      userDeposits.push({
        index: depositIndex,
        userIndex: index,
        idempotencyKey: `chaos-${seed}-${depositIndex}`,
        amountMinor,
        amount: fromMinorUnits(amountMinor, bank.currency),
        belowMinimum,
        startDelayMs: userRandom.int(0, 1_500),
        answers: asks && userRandom.chance(share.neverAnswered) ? 'never' : 'answer',
        answerDelayMs: userRandom.int(0, 1_500),
        duplicates: userRandom.chance(share.duplicates),
        repeatCreate: userRandom.chance(share.repeatCreate),
        webhookRefusals: userRandom.chance(share.webhookRefusals) ? userRandom.int(1, 3) : 0,
      });
    }
    users.push({
      index,
      bank,
      providerFaults: providerFaultsFor(userRandom, bank, settings.providerTimeoutMs, coverage),
      crashes: userRandom.chance(share.crashes) ? crashesFor(userRandom, coverage) : [],
      deposits: userDeposits,
    });
    deposits.push(...userDeposits);
  }
  return { seed, banks, users, deposits };
}

/** Whether the bank asks its caller questions (one-time passwords) on the way of a deposit. */
export function bankAsks(bank: Bank): boolean {
  return bank.bankId.includes('OTP');
}

/** A kind of provider fault: its name, whether the bank has the call it hits, its rule, its weight. */
interface FaultKind {
  kind: string;
  applies(bank: Bank): boolean;
  rule(random: Random, bank: Bank, timeoutMs: number): FaultRule;
  weight: number;
}

const anyBank = () => true;
const withBeneficiaries = (bank: Bank) => bank.beneficiaries;
const status5xx = (random: Random) => random.pick([500, 502, 503] as const);
const transferPath = (bank: Bank) => (bank.beneficiaries ? paths.transfer : paths.autoflow);

/** Every provider call of the flow, failing before and after the bank acts. */
const faultKinds: FaultKind[] = [
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
    // The bank is down for the user: every metadata read fails, past the retry limit.
    kind: 'metadata-down',
    applies: anyBank,
    rule: () => ({ path: paths.metadata, outcome: 'error', status: 503, times: 60 }),
    weight: 0.5,
  },
];

/**
 * What the run has not injected yet: faults are chosen among those first, so even a small run
 * meets every kind of provider fault and every crash point.
 */
interface Coverage {
  faultKinds: Set<string>;
  crashPoints: Set<CrashPoint>;
}

function providerFaultsFor(
  random: Random,
  bank: Bank,
  providerTimeoutMs: number,
  coverage: Coverage,
): ProviderFault[] {
  const faults: ProviderFault[] = [];
  const timeoutMs = providerTimeoutMs + 1_000;
  if (random.chance(share.providerFaults)) {
    const applicable = faultKinds.filter((kind) => kind.applies(bank));
    for (let n = random.int(1, 2); n > 0; n -= 1) {
      const fresh = applicable.filter((kind) => coverage.faultKinds.has(kind.kind));
      const chosen =
        fresh.length > 0
          ? random.pick(fresh)
          : random.weighted(applicable.map((kind) => [kind, kind.weight] as const));
      coverage.faultKinds.delete(chosen.kind);
      faults.push({ kind: chosen.kind, rule: chosen.rule(random, bank, timeoutMs) });
    }
  }
  // Latency last: the first matching rule applies, and it matches every path.
  if (random.chance(share.latency)) {
    faults.push({ kind: 'latency', rule: { latencyMs: random.int(20, 300) } });
  }
  return faults;
}

function crashesFor(random: Random, coverage: Coverage): CrashRule[] {
  return Array.from({ length: random.int(1, 2) }, () => {
    const fresh = crashPointNames.filter((point) => coverage.crashPoints.has(point));
    const point = fresh.length > 0 ? random.pick(fresh) : random.pick(crashPointNames);
    coverage.crashPoints.delete(point);
    const step = random.chance(0.2) ? undefined : random.pick(steps);
    return { point, ...(step ? { step } : {}), times: random.int(1, 2) };
  });
}

/**
 * The failure types the user's faults can explain for one of its deposits (besides what every deposit
 * may meet: none). A deposit that fails with another type is a finding.
 */
export function explainedFailures(user: PlannedUser, deposit: PlannedDeposit): Set<string> {
  const types = new Set<string>();
  if (deposit.belowMinimum) types.add('AMOUNT_BELOW_MINIMUM');
  if (deposit.answers === 'never') types.add('INPUT_EXPIRED');
  const kinds = user.providerFaults.map((fault) => fault.kind);
  // An unknown outcome of the transfer, a step that died around it: money may have moved.
  const crashAtTransfer = user.crashes.some((crash) => crash.step === undefined || crash.step === 'transfer');
  if (kinds.some((kind) => kind.startsWith('transfer-')) || crashAtTransfer) {
    types.add('TRANSFER_OUTCOME_UNKNOWN');
  }
  if (kinds.includes('metadata-down')) types.add('PROVIDER_UNAVAILABLE');
  return types;
}
