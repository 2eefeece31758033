/** The figures a chaos run prints: who ran on which bank, what the audit counted, the faults, the times. */
import type { DynamoDbFaultReport } from '#infra/local/dynamodb-faults';
import type { AuditResult, DepositRun, Ledger } from './audit.ts';
import { providerFaultsFired } from './audit-evidence.ts';
import { type Counters, seconds } from './context.ts';
import type { Bank, ChaosPlan } from './plan.ts';

export interface Timings {
  stackReadyMs: number;
  runMs: number;
  drainMs: number;
  auditMs: number;
  totalMs: number;
}

export function figuresOf(
  plan: ChaosPlan,
  banks: Bank[],
  result: AuditResult,
  faults: ReturnType<typeof faultFigures>,
  timings: Timings,
  extra: {
    queuesAfterDrain: unknown;
    capturedOutputLines: number;
    longCoolDowns: unknown;
    relayFaults: unknown;
  },
) {
  return {
    seed: plan.seed,
    dialect: plan.dialect ?? 'spec',
    deposits: plan.deposits.length,
    users: {
      total: plan.users.length,
      withOneDeposit: plan.users.filter((user) => user.deposits.length === 1).length,
      mostDeposits: Math.max(...plan.users.map((user) => user.deposits.length)),
      byBank: Object.fromEntries(
        banks.map((bank) => {
          const onBank = plan.users.filter((user) => user.bank.bankId === bank.bankId);
          return [
            bank.bankId,
            `${onBank.length} users, ${onBank.reduce((sum, user) => sum + user.deposits.length, 0)} deposits`,
          ];
        }),
      ),
    },
    ...result.figures,
    faults,
    timings: {
      stackStartS: seconds(timings.stackReadyMs),
      runS: seconds(timings.runMs),
      webhookDrainS: seconds(timings.drainMs),
      auditS: seconds(timings.auditMs),
      totalS: seconds(timings.totalMs),
    },
    ...extra,
  };
}

export function faultFigures(
  plan: ChaosPlan,
  runs: DepositRun[],
  counters: Counters,
  crashes: { fired: Record<string, number>; armed: number },
  refused: number,
  dynamoDbFaults: DynamoDbFaultReport,
  ledgers: Map<number, Ledger>,
) {
  const providerKinds: Record<string, number> = {};
  for (const user of plan.users)
    for (const fault of user.providerFaults) providerKinds[fault.kind] = (providerKinds[fault.kind] ?? 0) + 1;
  const dynamoDbArmed: Record<string, number> = {};
  for (const user of plan.users)
    for (const fault of user.dynamoDbFaults ?? [])
      dynamoDbArmed[fault.kind] = (dynamoDbArmed[fault.kind] ?? 0) + fault.times;
  const crashArmed: Record<string, number> = {};
  for (const user of plan.users)
    for (const crash of user.crashes) crashArmed[crash.point] = (crashArmed[crash.point] ?? 0) + crash.times;
  return {
    providerFaults: {
      users: plan.users.filter((user) => user.providerFaults.length > 0).length,
      // In a dialect without `sync`: users whose bank takes its time over transfers, read back.
      usersWithSlowTransfers: plan.users.filter((user) => user.slowTransfers).length,
      rulesByKind: providerKinds,
      // Requests each kind failed (counted rules: `times` less what the sandbox says is left).
      firedByKind: providerFaultsFired(plan, ledgers).fired,
    },
    crashes: {
      users: plan.users.filter((user) => user.crashes.length > 0).length,
      armedByPoint: crashArmed,
      firedByPoint: crashes.fired,
      neverFired: crashes.armed,
    },
    dynamoDbFaults: {
      users: plan.users.filter((user) => (user.dynamoDbFaults ?? []).length > 0).length,
      // Calls each kind was armed for, and answered (each attempt of the SDK's is one).
      callsArmedByKind: dynamoDbArmed,
      firedByKind: dynamoDbFaults.fired,
      neverFired: Object.keys(dynamoDbArmed)
        .filter((kind) => !dynamoDbFaults.fired[kind as keyof typeof dynamoDbFaults.fired])
        .sort(),
      whileTransferAttemptsOpen: dynamoDbFaults.inAttempts.length,
    },
    stepMessageCopies: {
      deposits: runs.filter((run) => run.duplicateMessages > 0).length,
      messages: counters.duplicateMessages,
    },
    schedulesFiredEarly: { fires: counters.scheduleFires, schedules: counters.schedulesFired.size },
    webhookRefusals: {
      outages: counters.outages,
      outageSeconds: seconds(counters.outageMs),
      outageRefusals: counters.outageRefusals,
      perDeposit: counters.perDepositRefusals,
      refusedByReceiver: refused,
    },
    repeatedCreates: plan.deposits.filter((deposit) => deposit.repeatCreate).length,
    decoys: {
      users: plan.users.filter((user) => user.decoys).length,
      byKind: Object.fromEntries(
        [...new Set(plan.users.flatMap((user) => user.decoys ?? []))].map((kind) => [
          kind,
          plan.users.filter((user) => user.decoys?.includes(kind)).length,
        ]),
      ),
    },
    workerRestart: counters.restart ?? 'none',
  };
}
