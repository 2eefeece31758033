/**
 * The faults of a chaos run's plan, and what they explain: the provider calls a fault can hit, the
 * crash points and the steps they are armed at, the kinds of provider fault (which banks each
 * applies to, its rule, its weight), each user's choice of faults and crashes (every kind met at
 * least once, even in a small run), and the failure types a user's faults explain for its deposits.
 */
import { type CrashPoint, crashPointNames } from '#infra/local/crash-points';
import type { Bank, PlannedDeposit, PlannedUser } from './plan.ts';
import type { Random } from './random.ts';

/** The provider calls of a deposit's flow, which a fault rule names. */
const paths = {
  metadata: '/v1/metadata/accounts/get',
  listBeneficiaries: '/v1/payment/beneficiaries/get',
  createBeneficiary: '/v1/payment/beneficiaries/create',
  transfer: '/v1/payment/transfer/create',
  autoflow: '/v1/payment/transfer/autoflow',
  /** The transfer operation read back (`reconcile`), at banks that take beneficiaries. */
  operation: '/v1/operation/get',
} as const;

/**
 * Where each crash point can go off at a bank: the writes of a claim only where the wallet is
 * registered as a beneficiary; a schedule only where a cool-down is long enough to be one, and the
 * deposits arm their own (no source); a shared wake-up only where a payment source cools down (the
 * plan gives such users a source). The others, anywhere.
 */
function crashPointApplies(point: CrashPoint, bank: Bank, withSource: boolean): boolean {
  if (point.endsWith('claim-write')) return bank.beneficiaries;
  // A user with a source has its deposits follow the source's wake-up: they arm no schedule.
  if (point.endsWith('schedule')) return !withSource && bank.beneficiaries && bank.coolDownMs >= 2_000;
  if (point.endsWith('wake-write')) return withSource && bank.beneficiaries && bank.coolDownMs > 0;
  return true;
}

export type Step = 'resolve-bank' | 'ensure-beneficiary' | 'wait-cooldown' | 'transfer' | 'reconcile';
export const steps: readonly Step[] = [
  'resolve-bank',
  'ensure-beneficiary',
  'wait-cooldown',
  'transfer',
  'reconcile',
];

export interface FaultRule {
  path?: string;
  latencyMs?: number;
  outcome?: 'timeout' | 'error' | 'refusal';
  status?: number;
  type?: string;
  retryAfterSeconds?: number;
  namesOperation?: boolean;
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

/** Shares of the users: how often each suffers faults. */
const share = {
  providerFaults: 0.3,
  latency: 0.25,
  /** Each crash is a step workers' process killed (SIGKILL) and started again: a few are plenty. */
  crashes: 0.15,
};

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

/**
 * What the run has not injected yet: faults are chosen among those first, so even a small run
 * meets every kind of provider fault and every crash point.
 */
export interface Coverage {
  faultKinds: Set<string>;
  /** Each crash point, and how many more users it is still to be armed for (at any step). */
  crashPoints: Map<CrashPoint, number>;
}

/** Users each crash point is armed for, at any step, before the plan picks points at random. */
const CRASH_COVERAGE = 2;

/** Nothing injected yet: every fault kind and every crash point still to be met. */
export function freshCoverage(): Coverage {
  return {
    faultKinds: new Set(faultKinds.map((kind) => kind.kind)),
    crashPoints: new Map(crashPointNames.map((point) => [point, CRASH_COVERAGE])),
  };
}

/** A user's faults: the sandbox's fault rules for its connection, and its crash points. */
export function faultsFor(
  random: Random,
  bank: Bank,
  providerTimeoutMs: number,
  coverage: Coverage,
  withSource: boolean,
): Pick<PlannedUser, 'providerFaults' | 'crashes'> {
  const points = crashPointNames.filter((point) => crashPointApplies(point, bank, withSource));
  // Until every point has been met, every user that can meet one crashes: a small run meets them all.
  const unmet = points.some((point) => coverage.crashPoints.has(point));
  return {
    providerFaults: providerFaultsFor(random, bank, providerTimeoutMs, coverage),
    crashes: unmet || random.chance(share.crashes) ? crashesFor(random, coverage, points) : [],
  };
}

function providerFaultsFor(
  random: Random,
  bank: Bank,
  providerTimeoutMs: number,
  coverage: Coverage,
): ProviderFault[] {
  const faults: ProviderFault[] = [];
  const timeoutMs = providerTimeoutMs + 1_000;
  const applicable = faultKinds.filter((kind) => kind.applies(bank));
  // Until every kind has been met, every user gets faults: even a small run meets them all.
  const unmet = applicable.some((kind) => coverage.faultKinds.has(kind.kind));
  if (unmet || random.chance(share.providerFaults)) {
    for (let n = random.int(1, 2); n > 0; n -= 1) {
      const fresh = applicable.filter((kind) => coverage.faultKinds.has(kind.kind));
      const chosen =
        fresh.length > 0
          ? random.pick(fresh)
          : random.weighted(applicable.map((kind) => [kind, kind.weight] as const));
      // A bank down for the user hides every other fault: it comes alone.
      if (chosen.kind === 'metadata-down' && faults.length > 0) break;
      coverage.faultKinds.delete(chosen.kind);
      faults.push({ kind: chosen.kind, rule: chosen.rule(random, bank, timeoutMs) });
      if (chosen.kind === 'metadata-down') break;
    }
  }
  // Latency last: the first matching rule applies, and it matches every path.
  if (random.chance(share.latency)) {
    faults.push({ kind: 'latency', rule: { latencyMs: random.int(20, 300) } });
  }
  return faults;
}

function crashesFor(random: Random, coverage: Coverage, points: readonly CrashPoint[]): CrashRule[] {
  return Array.from({ length: random.int(1, 2) }, () => {
    const fresh = points.filter((point) => coverage.crashPoints.has(point));
    const point = fresh.length > 0 ? random.pick(fresh) : random.pick(points);
    const left = coverage.crashPoints.get(point);
    if (left !== undefined) {
      // Still to be met: armed at whatever step makes that write first, so that it surely goes off.
      if (left <= 1) coverage.crashPoints.delete(point);
      else coverage.crashPoints.set(point, left - 1);
      return { point, times: 1 };
    }
    // Met already: at a step chosen at random (the rarer writes at whatever step makes them first).
    const common = /provider-call|state-write|lost-write|lease-write|queue-send/.test(point);
    const step = !common || random.chance(0.2) ? undefined : random.pick(steps);
    return { point, ...(step ? { step } : {}), times: 1 };
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
  // An unknown outcome of the transfer (and the operator's resolve of it, TRANSFER_NOT_EXECUTED when
  // nothing moved) is explained per deposit, by its own evidence (`audit-evidence.ts`), not here.
  if (kinds.includes('transfer-refused') || kinds.includes('transfer-refused-named'))
    types.add('INSUFFICIENT_BALANCE');
  if (deposit.cancelAfterMs !== undefined) types.add('CANCELLED');
  if (kinds.includes('metadata-down')) types.add('PROVIDER_UNAVAILABLE');
  return types;
}

/** The failure types a user's faults explain for its payment source. */
export function explainedSourceFailures(user: PlannedUser, cancelled: boolean): Set<string> {
  const types = new Set<string>();
  if (cancelled) types.add('CANCELLED');
  const kinds = user.providerFaults.map((fault) => fault.kind);
  if (kinds.includes('metadata-down')) types.add('PROVIDER_UNAVAILABLE');
  return types;
}
