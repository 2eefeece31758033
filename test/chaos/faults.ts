/**
 * The faults of a chaos run's plan, and what they explain: the crash points and the steps they are
 * armed at, each user's choice of provider faults (their kinds in `fault-kinds.ts`) and crashes
 * (every kind met, even in a small run), and the failure types a user's faults explain for its
 * deposits and its payment source.
 */
import { type CrashPoint, crashPointNames } from '#infra/local/crash-points';
import type { Dialect } from '#shared/provider/interface/dialects';
import { faultKindsFor } from './fault-kinds.ts';
import type { Bank, PlannedDeposit, PlannedUser } from './plan.ts';
import type { Random } from './random.ts';

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
  outcome?: 'timeout' | 'error' | 'refusal' | 'pending';
  status?: number;
  type?: string;
  retryAfterSeconds?: number;
  namesOperation?: boolean;
  phase?: 'before' | 'after';
  /** Only requests that answer a question. */
  answered?: boolean;
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

/**
 * What the run has not injected yet: faults are chosen among those first, so even a small run
 * meets every kind of provider fault and every crash point.
 */
export interface Coverage {
  /** Each fault kind, and how many more users it is still to be planned for. */
  faultKinds: Map<string, number>;
  /** Each crash point, and how many more users it is still to be armed for (at any step). */
  crashPoints: Map<CrashPoint, number>;
}

/** Users each crash point is armed for, at any step, before the plan picks points at random. */
const CRASH_COVERAGE = 2;
/**
 * Users each fault kind is planned for before the plan picks kinds by weight: a kind planned for one
 * user may find nothing to hit there (its deposits end first, or skip the call it names), and every
 * kind must go off in a run.
 */
const FAULT_COVERAGE = 2;

/** Nothing injected yet: every fault kind (of `dialect`) and every crash point still to be met. */
export function freshCoverage(dialect: Dialect): Coverage {
  return {
    faultKinds: new Map(faultKindsFor(dialect).map((kind) => [kind.kind, FAULT_COVERAGE])),
    crashPoints: new Map(crashPointNames.map((point) => [point, CRASH_COVERAGE])),
  };
}

/** Who a user's faults are chosen for. */
export interface FaultsOf {
  bank: Bank;
  /** The dialect the orchestrator speaks: the fault rules name its paths. */
  dialect: Dialect;
  /** The orchestrator's provider timeout: a timeout fault hangs past it. */
  providerTimeoutMs: number;
  /** The user prepares a payment source. */
  withSource: boolean;
  deposits: readonly PlannedDeposit[];
}

/** A user's faults: the sandbox's fault rules for its connection, and its crash points. */
export function faultsFor(
  random: Random,
  coverage: Coverage,
  user: FaultsOf,
): Pick<PlannedUser, 'providerFaults' | 'crashes'> {
  const points = crashPointNames.filter((point) => crashPointApplies(point, user.bank, user.withSource));
  // Until every point has been met, every user that can meet one crashes: a small run meets them all.
  const unmet = points.some((point) => coverage.crashPoints.has(point));
  return {
    providerFaults: providerFaultsFor(random, coverage, user),
    crashes: unmet || random.chance(share.crashes) ? crashesFor(random, coverage, points) : [],
  };
}

/**
 * How many of the deposits surely get to their transfer, and so to its read: neither below the
 * minimum, nor left unanswered, nor cancelled.
 */
const reachingTransfer = (deposits: readonly PlannedDeposit[]) =>
  deposits.filter(
    (deposit) => !deposit.belowMinimum && deposit.answers === 'answer' && deposit.cancelAfterMs === undefined,
  ).length;

function providerFaultsFor(
  random: Random,
  coverage: Coverage,
  { bank, dialect, providerTimeoutMs, deposits }: FaultsOf,
): ProviderFault[] {
  const faults: ProviderFault[] = [];
  const faultKinds = faultKindsFor(dialect);
  const timeoutMs = providerTimeoutMs + 1_000;
  // A kind that reads the transfer back, only where a deposit surely gets to its transfer.
  const reaching = reachingTransfer(deposits);
  const applicable = faultKinds.filter((kind) => kind.applies(bank) && !(kind.readsBack && reaching === 0));
  // Until every kind has been met, every user gets faults: even a small run meets them all.
  const unmet = applicable.some((kind) => coverage.faultKinds.has(kind.kind));
  if (unmet || random.chance(share.providerFaults)) {
    // While kinds are still to be met, a user takes up to three (on three different calls).
    const wanted = unmet ? 3 : random.int(1, 2);
    for (let tries = 0; faults.length < wanted && tries < 8; tries += 1) {
      const held = faults.map((fault) => faultKinds.find((kind) => kind.kind === fault.kind));
      // One kind that ends the deposit it hits per user: a second could find nothing left to hit. Nor
      // one that reads the transfer back beside it, unless a second deposit gets to its transfer.
      const ending = held.some((kind) => kind?.ends);
      const reading = held.some((kind) => kind?.readsBack);
      const open = applicable.filter(
        (kind) =>
          !(ending && kind.ends) && (reaching > 1 || !((ending && kind.readsBack) || (reading && kind.ends))),
      );
      const fresh = open.filter((kind) => coverage.faultKinds.has(kind.kind));
      const chosen =
        fresh.length > 0
          ? random.pick(fresh)
          : random.weighted(open.map((kind) => [kind, kind.weight] as const));
      // A bank down for the user hides every other fault: it comes alone.
      if (chosen.kind === 'metadata-down' && faults.length > 0) break;
      const rule = chosen.rule(random, bank, timeoutMs);
      // One rule per call: the first matching rule applies, and a second on the same call would go
      // off only if the first made the step call again.
      if (faults.some((fault) => fault.rule.path === rule.path)) continue;
      const left = coverage.faultKinds.get(chosen.kind) ?? 0;
      if (left <= 1) coverage.faultKinds.delete(chosen.kind);
      else coverage.faultKinds.set(chosen.kind, left - 1);
      faults.push({ kind: chosen.kind, rule });
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
  const rules: CrashRule[] = [];
  for (let n = random.int(1, 2); n > 0; n -= 1) {
    // One schedule point per user: a worker killed at the first leaves the wake-up to its message's
    // redelivery, which comes after a short cool-down has passed and arms no schedule for the second.
    const open = rules.some((rule) => rule.point.endsWith('schedule'))
      ? points.filter((point) => !point.endsWith('schedule'))
      : points;
    const fresh = open.filter((point) => coverage.crashPoints.has(point));
    // The shared wake-up's points first, where a user can meet them (a source at a cool-down bank,
    // whose arming of the wake-up surely comes): left to chance among the others, the 100 deposits of
    // `npm test` met neither. (Not the schedule's: whether a deposit at the fast bank waits through
    // a schedule or a delayed message depends on the pace of the cores, so each is armed as before,
    // twice where it can be.)
    const rare = fresh.filter((point) => point.endsWith('wake-write'));
    const pool = rare.length > 0 ? rare : fresh;
    const point = pool.length > 0 ? random.pick(pool) : random.pick(open);
    const left = coverage.crashPoints.get(point);
    if (left !== undefined) {
      // Still to be met: armed at whatever step makes that write first, so that it surely goes off.
      if (left <= 1) coverage.crashPoints.delete(point);
      else coverage.crashPoints.set(point, left - 1);
      rules.push({ point, times: 1 });
      continue;
    }
    // Met already: at a step chosen at random (the rarer writes at whatever step makes them first).
    const common = /provider-call|state-write|lost-write|lease-write|queue-send/.test(point);
    const step = !common || random.chance(0.2) ? undefined : random.pick(steps);
    rules.push({ point, ...(step ? { step } : {}), times: 1 });
  }
  return rules;
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
  // The bank changed mid-run: a refusal that ends the deposit it hits (nothing moved).
  if (kinds.includes('bank-minimum-raised')) types.add('AMOUNT_BELOW_MINIMUM');
  if (kinds.includes('bank-details-mismatch')) types.add('BENEFICIARY_DETAILS_MISMATCH');
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
