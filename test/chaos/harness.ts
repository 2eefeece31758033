/**
 * The chaos harness of the deposits: starts its own local stack and webhook receiver, runs N deposits
 * over every sandbox bank (many users, several deposits each, some one), answers the banks' questions
 * but for a deliberate few, and meanwhile injects, at random from one seed:
 *
 *   provider faults   the sandbox's fault rules per user: latency, 5xx and timeouts, before and after
 *                     the bank acts, on every call of the flow (POST /sandbox/faults)
 *   real deaths       the step workers run in two child processes, killed with SIGKILL at the local
 *                     crash points, before and after every write and provider call, and a write
 *                     whose answer is lost (POST /_local/crash on the deposits gateway)
 *   payment sources   prepared first or alongside the deposits, some cancelled, failing, or losing
 *                     their own schedule; the day-long cool-downs ended by moving the local clock
 *   step messages     copies of a deposit's step messages sent straight to the step queues: duplicates
 *                     of the live one, late ones of old versions, early ones of later steps, delayed
 *   schedules         wake-ups fired early, and twice (the local scheduler's /_local/schedules)
 *   webhooks          the receiver refusing deliveries for a while, of all deposits or of one
 *   decoys            at a bank that masks accounts, another beneficiary whose masked form ends as
 *                     the wallet's, registered before the user's deposits (`decoys.ts`)
 *   DynamoDB faults   throttling, internal errors, transaction conflicts and lost answers of the
 *                     step workers' DynamoDB calls, per user (POST /_local/dynamodb-faults)
 *   a restart         the step workers' processes killed mid-run (SIGKILL) and started again
 *
 * in the dialect the orchestrator is set to speak to the provider (`dialect`: `spec`, or `dapi-v2`,
 * where no call sends `sync` and the sandbox holds each until its bank is done, `context.ts`),
 * then ends the long cool-downs (`long-cool-downs.ts`), resolves the unknown outcomes from the ledger
 * (`resolutions.ts`), drains the webhooks and audits (`audit.ts`). `run.ts` is its command line,
 * `chaos.test.ts` its smaller run under vitest. Its parts: `plan.ts` (who does what, from the seed),
 * `faults.ts` and `fault-kinds.ts` (the faults chosen), `drive.ts` and `drive-source.ts` (the
 * callers), `disturbances.ts` (the faults from outside), `evidence.ts` (drain and gather), `audit.ts`
 * (the judgement), `figures.ts` (what is printed). docs/reliability.md says what it proves.
 */

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type LocalStack, startLocalStack } from '#infra/local/stack';
import { type DialectName, dialectNames } from '#shared/provider/interface/dialects';
import { TEST_SWEEP_INTERVAL_MS } from '../support/local-stack.ts';
import { sharedDynamoDb } from '../support/shared-dynamodb.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';
import { audit, type DepositRun, type SourceRun, type UserRun } from './audit.ts';
import { type Clients, clientsFor } from './clients.ts';
import {
  appSecret,
  type Counters,
  chaosEnv,
  chaosEnvIn,
  OTP,
  PARK_AFTER_MS,
  pool,
  type RunContext,
  VISIBILITY_TIMEOUT_SECONDS,
} from './context.ts';
import { chaosLoop } from './disturbances.ts';
import { runUser } from './drive.ts';
import { drainWebhooks, gatherEvidence, secretsOf } from './evidence.ts';
import { faultFigures, figuresOf } from './figures.ts';
import { endLongCoolDowns } from './long-cool-downs.ts';
import { captureOutput } from './output.ts';
import { banksOf, planRun } from './plan.ts';
import { resolveUnknownOutcomes } from './resolutions.ts';

export interface ChaosOptions {
  deposits: number;
  seed: number;
  /** Users driven at the same time (each with its deposits in flight together). */
  usersAtOnce?: number;
  /** How long one deposit may take before it counts as stalled. */
  depositDeadlineMs?: number;
  /** Where the captured output of the run goes; a file in the temporary directory by default. */
  logFile?: string;
  /** The dialect the orchestrator speaks to the provider (`PROVIDER_DIALECT`): `spec` by default. */
  dialect?: DialectName;
}

export interface ChaosReport {
  seed: number;
  dialect: DialectName;
  deposits: number;
  passed: boolean;
  /** What the audit found; each names its deposits. Empty when the run passed. */
  failures: string[];
  figures: Record<string, unknown>;
  durationMs: number;
  logFile: string;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const began = Date.now();
  const { seed } = options;
  const dialect = options.dialect ?? dialectNames[0];
  const logFile = options.logFile ?? join(tmpdir(), `chaos-${seed}.log`);
  const output = captureOutput();
  const say = output.say;
  let stack: LocalStack | undefined;
  let webhook: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
  let clients: Clients | undefined;
  try {
    say(
      `chaos: seed ${seed}, ${options.deposits} deposits, the ${dialect} dialect (replay: CHAOS_SEED=${seed} CHAOS_DIALECT=${dialect})`,
    );
    webhook = await startWebhookReceiver();
    stack = await startLocalStack({
      ...sharedDynamoDb(),
      sandboxPort: 0,
      depositsPort: 0,
      operatorPort: 0,
      visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS,
      sweepIntervalMs: TEST_SWEEP_INTERVAL_MS,
      // Real deaths: the step workers run in child processes, killed (SIGKILL) at the crash points.
      stepWorkers: 'child-process',
      env: { ...chaosEnvIn(dialect), WEBHOOK_URL: `${webhook.url}/hooks`, WEBHOOK_SECRET: webhook.secret },
    });
    const stackReadyMs = Date.now() - began;
    clients = clientsFor(stack, webhook.url, appSecret);
    const banks = banksOf(await clients.banks());
    const plan = planRun(
      { deposits: options.deposits, seed, providerTimeoutMs: Number(chaosEnv.PROVIDER_TIMEOUT_MS), dialect },
      banks,
    );
    say(
      `chaos: stack up in ${(stackReadyMs / 1000).toFixed(1)} s; ${plan.users.length} users over ${banks.length} banks (${banks.map((bank) => bank.bankId).join(', ')})`,
    );

    const runs: DepositRun[] = plan.deposits.map((deposit) => ({
      plan: deposit,
      createRetries: 0,
      asked: false,
      answersSent: 0,
      answerErrors: 0,
      readErrors: 0,
      duplicateMessages: 0,
      copies: [],
      operatorRedrives: {},
      outcome: 'not-created',
      findings: [],
    }));
    const users: UserRun[] = plan.users.map((user) => ({ plan: user }));
    const sources = new Map<number, SourceRun>(
      plan.users
        .filter((user) => user.source)
        .map((user) => [
          user.index,
          { userIndex: user.index, scheduleDeleted: false, outcome: 'not-created', findings: [] },
        ]),
    );
    const counters: Counters = {
      started: 0,
      inFlight: 0,
      duplicateMessages: 0,
      scheduleFires: 0,
      schedulesFired: new Set(),
      outages: 0,
      outageMs: 0,
      outageRefusals: 0,
      perDepositRefusals: 0,
      cancels: {},
      sourceSchedulesLost: 0,
    };
    const context: RunContext = {
      plan,
      clients,
      stack,
      runs,
      sources,
      counters,
      depositDeadlineMs: options.depositDeadlineMs ?? 300_000,
      say,
    };

    // --- run: users a few at a time, the disturbances alongside
    const runStarted = Date.now();
    const chaos = chaosLoop(context);
    let finishedUsers = 0;
    const progress = setInterval(() => {
      const settled = runs.filter((run) => run.outcome !== 'not-created').length;
      say(
        `chaos: ${Math.round((Date.now() - runStarted) / 1000)} s: ${counters.started} deposits started, ${counters.inFlight} in flight, ${settled} settled; ${finishedUsers}/${users.length} users done`,
      );
    }, 15_000);
    await pool(users, options.usersAtOnce ?? 16, async (user) => {
      await runUser(context, user);
      finishedUsers += 1;
    });
    clearInterval(progress);
    await chaos.stop();
    // The day-long bank's cool-downs end within the run: the local clock moves past them.
    const longCoolDowns = await endLongCoolDowns(context);
    // The operator resolves the unknown outcomes from the bank's ledger, before the webhooks drain.
    await resolveUnknownOutcomes(context, users);
    // The events the relay set aside reach their callers once the operator redrives its DLQ.
    const relay = await redriveSetAside(clients);
    const runMs = Date.now() - runStarted;
    say(
      `chaos: every deposit settled or given up on after ${(runMs / 1000).toFixed(1)} s; waiting for webhooks`,
    );

    // --- drain the webhooks, gather, audit
    const drainStarted = Date.now();
    const finalIds = await drainWebhooks(clients, runs);
    const drainMs = Date.now() - drainStarted;
    const auditStarted = Date.now();
    const evidence = await gatherEvidence(clients, users, runs, finalIds);
    const result = audit({
      plan,
      users,
      runs,
      sources: [...sources.values()],
      items: evidence.items,
      ledgers: evidence.ledgers,
      deliveries: evidence.deliveries,
      beneficiaries: evidence.beneficiaries,
      secrets: secretsOf(appSecret, users),
      otps: [OTP],
      output: output.text(),
      now: Date.now(),
      parkAfterMs: PARK_AFTER_MS,
      scheduledDeposits: evidence.scheduledDeposits,
      notes: evidence.notes,
      crashes: evidence.crashes,
      dynamoDbFaults: evidence.dynamoDbFaults,
      workerKills: stack.stepWorkerKills(),
      stallAfterMs: Number(chaosEnv.STALL_AFTER_SECONDS) * 1000,
      clockJumps: longCoolDowns.jumps,
    });
    const relayPlanned = plan.deposits.filter((deposit) => deposit.relayFault).length;
    if (relayPlanned > 0 && relay.setAside.length === 0)
      result.failures.push(`relay faults planned for ${relayPlanned} deposits, none set aside an event`);
    if (relay.moved < relay.setAside.length)
      result.failures.push(
        `the relay set aside ${relay.setAside.length} events, the redrive moved ${relay.moved}`,
      );
    const userErrors = users
      .filter((user) => user.error)
      .map((user) => `user ${user.plan.index}: ${user.error}`);
    const failures = [
      ...(userErrors.length
        ? [`users the harness could not set up (${userErrors.length}): ${userErrors.join('; ')}`]
        : []),
      ...result.failures,
    ];
    const auditMs = Date.now() - auditStarted;

    const faults = faultFigures(
      plan,
      runs,
      counters,
      evidence.crashes,
      evidence.receiver.refused,
      evidence.dynamoDbFaults,
      evidence.ledgers,
    );
    const figures = figuresOf(
      plan,
      banks,
      result,
      faults,
      { stackReadyMs, runMs, drainMs, auditMs, totalMs: Date.now() - began },
      {
        queuesAfterDrain: evidence.queues,
        capturedOutputLines: output.lines(),
        longCoolDowns,
        relayFaults: {
          planned: relayPlanned,
          setAside: relay.setAside.length,
          redriven: relay.moved,
          triesEach: [...new Set(relay.setAside.map((event) => event.failures))],
        },
      },
    );
    return {
      seed,
      dialect,
      deposits: plan.deposits.length,
      passed: failures.length === 0,
      failures,
      figures,
      durationMs: Date.now() - began,
      logFile,
    };
  } finally {
    clients?.close();
    await stack?.stop().catch(() => undefined);
    await webhook?.stop().catch(() => undefined);
    output.restore(logFile);
  }
}

/**
 * Waits (a little) until no event is still failing to relay, then redrives the relay's DLQ, as the
 * runbook does: what the relay set aside, and how many messages the redrive moved.
 */
async function redriveSetAside(clients: Clients) {
  let report = await clients.relayFaultReport();
  for (let waited = 0; report.failing.length > 0 && waited < 20; waited += 1) {
    await sleep(500);
    report = await clients.relayFaultReport();
  }
  const moved = await clients.redriveRelayDlq();
  return { setAside: report.setAside, moved };
}
