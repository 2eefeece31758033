/**
 * The chaos harness of the deposits: starts its own local stack and webhook receiver, runs N deposits
 * over every sandbox bank (many users, several deposits each, some one), answers the banks' questions
 * but for a deliberate few, and meanwhile injects, at random from one seed:
 *
 *   provider faults   the sandbox's fault rules per user: latency, 5xx and timeouts, before and after
 *                     the bank acts, on every call of the flow (POST /sandbox/faults)
 *   step crashes      the local crash points, at every step boundary, and a write whose answer is
 *                     lost (POST /_local/crash on the deposits gateway)
 *   step messages     copies of a deposit's step messages sent straight to the step queues: duplicates
 *                     of the live one, late ones of old versions, early ones of later steps, delayed
 *   schedules         wake-ups fired early, and twice (the local scheduler's /_local/schedules)
 *   webhooks          the receiver refusing deliveries for a while, of all deposits or of one
 *   a restart         the queue pollers (step workers) stopped mid-run and started again
 *
 * then drains (every deposit done, failed, or deliberately waiting; bounded) and audits
 * (`audit.ts`). `run.ts` is its command line, `chaos.test.ts` its smaller run under vitest.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type LocalStack, startLocalStack } from '#infra/local/stack';
import { localWallets } from '#infra/local/wallets';
import { testEnv } from '../support/local-stack.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';
import { audit, type DepositRun, type Ledger, type UserRun } from './audit.ts';
import {
  type Clients,
  type Connection,
  clientsFor,
  type DepositItem,
  type Reply,
  type StepMessage,
} from './clients.ts';
import { captureOutput } from './output.ts';
import { banksOf, type ChaosPlan, type PlannedDeposit, type PlannedUser, planRun, steps } from './plan.ts';
import { type Random, randomStream } from './random.ts';

export interface ChaosOptions {
  deposits: number;
  seed: number;
  /** Users driven at the same time (each with its deposits in flight together). */
  usersAtOnce?: number;
  /** How long one deposit may take before it counts as stalled. */
  depositDeadlineMs?: number;
  /** Where the captured output of the run goes; a file in the temporary directory by default. */
  logFile?: string;
}

export interface ChaosReport {
  seed: number;
  deposits: number;
  passed: boolean;
  /** What the audit found; each names its deposits. Empty when the run passed. */
  failures: string[];
  figures: Record<string, unknown>;
  durationMs: number;
  logFile: string;
}

const appSecret = testEnv.SANDBOX_APP_SECRET;
const OTP = '123456';

/**
 * The stack's settings: the tests' short delays, with room for a loaded two-core machine. A step
 * must finish well within STALL_AFTER_SECONDS (the sweeper re-drives a deposit that did not move
 * for that long, and a re-driven transfer whose attempt is on record is an unknown outcome, as it
 * should be), and a question must be answerable in time under load.
 */
export const chaosEnv = {
  ...testEnv,
  PROVIDER_TIMEOUT_MS: '3000',
  SANDBOX_TIMEOUT_MS: '4000',
  STALL_AFTER_SECONDS: '8',
  INPUT_TTL_SECONDS: '10',
  // Webhook retries after 1 s, doubling: a refusing receiver is a while, not an instant.
  WEBHOOK_RETRY_BASE_SECONDS: '1',
  // The production level: what would be logged in AWS is what the audit scans for secrets.
  POWERTOOLS_LOG_LEVEL: 'INFO',
};
const VISIBILITY_TIMEOUT_SECONDS = 6;
/**
 * How long the bank waits for an answer: a little longer than the deposit does, as a deployment
 * would set INPUT_TTL_SECONDS. The bank holds the user's connection while it waits, so a bank that
 * waited much longer (the sandbox's default is 300 s) would hold up the user's next deposits long
 * after the question expired.
 */
const SANDBOX_INPUT_TTL_SECONDS = Number(chaosEnv.INPUT_TTL_SECONDS) + 2;
/** A deposit whose next wake-up is further than this waits deliberately (the 24-hour cool-down). */
const PARK_AFTER_MS = 10 * 60_000;

interface Counters {
  started: number;
  inFlight: number;
  duplicateMessages: number;
  scheduleFires: number;
  schedulesFired: Set<string>;
  outages: number;
  outageMs: number;
  outageRefusals: number;
  perDepositRefusals: number;
  restart?: { afterDeposits: number; pauseMs: number; tookMs: number };
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const began = Date.now();
  const { seed } = options;
  const logFile = options.logFile ?? join(tmpdir(), `chaos-${seed}.log`);
  const output = captureOutput();
  const say = output.say;
  let stack: LocalStack | undefined;
  let webhook: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
  let clients: Clients | undefined;
  try {
    say(`chaos: seed ${seed}, ${options.deposits} deposits (replay: CHAOS_SEED=${seed})`);
    webhook = await startWebhookReceiver();
    stack = await startLocalStack({
      sandboxPort: 0,
      depositsPort: 0,
      visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS,
      sweepIntervalMs: 1_000,
      env: { ...chaosEnv, WEBHOOK_URL: `${webhook.url}/hooks`, WEBHOOK_SECRET: webhook.secret },
    });
    const stackReadyMs = Date.now() - began;
    clients = clientsFor(stack, webhook.url, appSecret);
    const banks = banksOf(await clients.banks());
    const plan = planRun(
      { deposits: options.deposits, seed, providerTimeoutMs: Number(chaosEnv.PROVIDER_TIMEOUT_MS) },
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
      outcome: 'not-created',
      findings: [],
    }));
    const users: UserRun[] = plan.users.map((user) => ({ plan: user }));
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
    };
    const context: RunContext = {
      plan,
      clients,
      stack,
      runs,
      counters,
      depositDeadlineMs: options.depositDeadlineMs ?? 300_000,
      say,
    };

    // --- run: users a few at a time, the chaos loop alongside
    const runStarted = Date.now();
    const chaos = chaosLoop(context);
    let finishedUsers = 0;
    const progress = setInterval(() => {
      const done = runs.filter((run) => run.outcome !== 'not-created').length;
      say(
        `chaos: ${Math.round((Date.now() - runStarted) / 1000)} s: ${counters.started} deposits started, ${counters.inFlight} in flight, ${done} settled; ${finishedUsers}/${users.length} users done`,
      );
    }, 15_000);
    await pool(users, options.usersAtOnce ?? 16, async (user) => {
      await runUser(context, user);
      finishedUsers += 1;
    });
    clearInterval(progress);
    await chaos.stop();
    const runMs = Date.now() - runStarted;
    say(
      `chaos: every deposit settled or given up on after ${(runMs / 1000).toFixed(1)} s; waiting for webhooks`,
    );

    // --- drain the webhooks: every final state delivered, or a bound
    const drainStarted = Date.now();
    const finalIds = runs.filter((run) => run.outcome === 'final' && run.id).map((run) => run.id as string);
    let deliveries = (await clients.deliveries()).deliveries;
    const drainDeadline = Date.now() + 90_000;
    for (;;) {
      const heard = new Set(
        deliveries
          .filter((delivery) => delivery.type === 'deposit.done' || delivery.type === 'deposit.failed')
          .map((delivery) => delivery.depositId),
      );
      if (finalIds.every((id) => heard.has(id)) || Date.now() > drainDeadline) break;
      await sleep(1_000);
      deliveries = (await clients.deliveries()).deliveries;
    }
    const drainMs = Date.now() - drainStarted;

    // --- gather what the audit judges
    const auditStarted = Date.now();
    const crashes = await clients.crashReport();
    const receiver = await clients.deliveries();
    deliveries = receiver.deliveries;
    const schedules = await clients.schedules();
    const scheduledDeposits = new Set<string>();
    for (const schedule of schedules.schedules) {
      try {
        scheduledDeposits.add(String(JSON.parse(schedule.Target.Input ?? '{}').depositId));
      } catch {
        // not one of ours
      }
    }
    const items = await clients.scanDeposits();
    const queues = await clients.queueDepths();
    // Why a final state did not reach the receiver: what the table's outbox holds, what was refused.
    const notes = new Map<string, string>();
    const heardFinal = new Set(
      deliveries
        .filter(
          (delivery) =>
            delivery.verified && (delivery.type === 'deposit.done' || delivery.type === 'deposit.failed'),
        )
        .map((delivery) => delivery.depositId),
    );
    for (const id of finalIds.filter((candidate) => !heardFinal.has(candidate))) {
      const item = items.find((candidate) => candidate.sk === 'DEPOSIT' && candidate.id === id);
      const event = item?.event as { id?: string; type?: string } | undefined;
      const heard = deliveries
        .filter((delivery) => delivery.depositId === id)
        .map((delivery) => `${delivery.id} ${delivery.type}`);
      notes.set(
        id,
        `outbox holds ${event?.id ?? 'nothing'} ${event?.type ?? ''}; receiver refused ${await clients.refusedDeliveries(id)} of its deliveries, took [${heard.join(', ')}]; notify queue: [${(await clients.messagesOf('notify', id)).join(', ')}]`,
      );
    }
    const ledgers = new Map<number, Ledger>();
    const beneficiaries = new Map<number, number>();
    const reader = clients;
    await pool(users, 8, async (user) => {
      const connection = user.connection;
      if (!connection) return;
      ledgers.set(user.plan.index, await reader.ledger(connection));
      const bank = user.plan.bank;
      // The list shows every beneficiary only at banks that do not hide new ones in their cool-down,
      // or whose cool-down has passed.
      if (bank.beneficiaries && !bank.longCoolDown) {
        await reader.setFaults(connection, []);
        // The bank may still hold the connection for a question that expired: ask again a while.
        let listed = await reader.beneficiaries(connection);
        for (let tries = 0; listed.status === 409 && tries < 30; tries += 1) {
          await sleep(1_000);
          listed = await reader.beneficiaries(connection);
        }
        if (listed.status === 200) {
          const wallet = localWalletAccountNumber(bank.walletAccountID);
          const count = ((listed.body.beneficiaries ?? []) as { accountNumber?: string }[]).filter(
            (beneficiary) => normalise(beneficiary.accountNumber ?? '') === wallet,
          ).length;
          beneficiaries.set(user.plan.index, count);
        } else {
          runs[user.plan.deposits[0]?.index ?? 0]?.findings.push(
            `the bank's beneficiary list answered ${listed.status} after the run`,
          );
        }
      }
    });
    const secrets = [
      appSecret,
      ...users.flatMap((user) =>
        user.connection ? [secretPart(user.connection.accessToken), user.connection.userSecret] : [],
      ),
    ];
    const userErrors = users
      .filter((user) => user.error)
      .map((user) => `user ${user.plan.index}: ${user.error}`);
    const result = audit({
      plan,
      users,
      runs,
      items,
      ledgers,
      deliveries,
      beneficiaries,
      secrets,
      otps: [OTP],
      output: output.text(),
      now: Date.now(),
      parkAfterMs: PARK_AFTER_MS,
      scheduledDeposits,
      notes,
    });
    const failures = [
      ...(userErrors.length
        ? [`users the harness could not set up (${userErrors.length}): ${userErrors.join('; ')}`]
        : []),
      ...result.failures,
    ];
    const auditMs = Date.now() - auditStarted;

    const figures = {
      seed,
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
      faults: faultFigures(plan, runs, counters, crashes, receiver.refused),
      timings: {
        stackStartS: seconds(stackReadyMs),
        runS: seconds(runMs),
        webhookDrainS: seconds(drainMs),
        auditS: seconds(auditMs),
        totalS: seconds(Date.now() - began),
      },
      queuesAfterDrain: queues,
      capturedOutputLines: output.lines(),
    };
    return {
      seed,
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

interface RunContext {
  plan: ChaosPlan;
  clients: Clients;
  stack: LocalStack;
  runs: DepositRun[];
  counters: Counters;
  depositDeadlineMs: number;
  say(line: string): void;
}

/** One user: its connection, its faults, and its deposits driven together. */
async function runUser(context: RunContext, user: UserRun) {
  const { clients } = context;
  const plan = user.plan;
  let connection: Connection | undefined;
  for (let attempt = 1; !connection; attempt += 1) {
    try {
      connection = await clients.createUser(plan.bank.bankId, SANDBOX_INPUT_TTL_SECONDS);
    } catch (error) {
      if (attempt >= 5) {
        user.error = `not created: ${(error as Error).message}`;
        return;
      }
      await sleep(500 * attempt);
    }
  }
  user.connection = connection;
  try {
    if (plan.providerFaults.length > 0) {
      await clients.setFaults(
        connection,
        plan.providerFaults.map((fault) => fault.rule),
      );
    }
    for (const crash of plan.crashes) {
      await clients.armCrash(connection, crash.point, {
        ...(crash.step ? { step: crash.step } : {}),
        times: crash.times,
      });
    }
  } catch (error) {
    user.error = `faults not injected: ${(error as Error).message}`;
    return;
  }
  await Promise.all(
    plan.deposits.map((deposit) =>
      driveDeposit(context, plan, connection, deposit).catch((error: unknown) => {
        context.runs[deposit.index]?.findings.push(
          `the harness failed: ${(error as Error).stack ?? String(error)}`,
        );
      }),
    ),
  );
}

/** Starts one deposit and carries it to its end as its caller would, answering (or not) its questions. */
async function driveDeposit(
  context: RunContext,
  user: PlannedUser,
  connection: Connection,
  plan: PlannedDeposit,
) {
  const { clients, counters } = context;
  const run = context.runs[plan.index] as DepositRun;
  const random = randomStream(context.plan.seed, 'deposit', plan.index);
  await sleep(plan.startDelayMs);
  const request = { amount: plan.amount, walletAccountID: user.bank.walletAccountID };

  // Create; a create that did not answer is repeated with the same key, as a caller would.
  let id: string | undefined;
  for (let attempt = 1; attempt <= 5 && !id; attempt += 1) {
    const created: Reply = await clients
      .createDeposit(connection, plan.idempotencyKey, request)
      .catch((error: unknown) => ({ status: 0, body: { error: String(error) } }));
    if ((created.status === 202 || (attempt > 1 && created.status === 200)) && created.body.operationID) {
      id = created.body.operationID;
    } else {
      run.createRetries += 1;
      run.findings.push(`create answered ${created.status} ${JSON.stringify(created.body).slice(0, 200)}`);
      await sleep(500 * attempt);
    }
  }
  if (!id) return;
  run.id = id;
  // Creates that did not answer and were repeated are counted; only a deposit never accepted is a finding.
  run.findings = [];
  counters.started += 1;
  counters.inFlight += 1;
  try {
    if (plan.webhookRefusals > 0) {
      await clients.refuseDeliveries(plan.webhookRefusals, id);
      counters.perDepositRefusals += plan.webhookRefusals;
    }
    if (plan.repeatCreate) {
      const again = await clients.createDeposit(connection, plan.idempotencyKey, request);
      if (again.status !== 200 || again.body.operationID !== id) {
        run.findings.push(
          `the same create again answered ${again.status} ${again.body.operationID ?? ''}, not ${id}`,
        );
      }
    }

    const deadline = Date.now() + context.depositDeadlineMs;
    let answered: string | undefined;
    let duplicateRounds = 0;
    for (;;) {
      const read = await clients.readDeposit(connection, id).catch(() => undefined);
      if (read?.status !== 200) {
        run.readErrors += 1;
      } else {
        const deposit = read.body;
        if (deposit.status === 'done' || deposit.status === 'failed') {
          run.outcome = 'final';
          break;
        }
        if (deposit.status === 'user_input_required') {
          run.asked = true;
          const question = `${deposit.inputExpiresAt} ${JSON.stringify(deposit.userInputs)}`;
          if (plan.answers === 'answer' && question !== answered) {
            await sleep(plan.answerDelayMs);
            const userInputs = (deposit.userInputs as { id: string; index: number; query: string }[]).map(
              (input) => ({ ...input, answer: OTP }),
            );
            const reply = await clients
              .createDeposit(connection, plan.idempotencyKey, { ...request, userInputs })
              .catch(() => undefined);
            // A crash of the API's own write answers 500: the caller asks again.
            if (reply?.status === 200) {
              answered = question;
              run.answersSent += 1;
            } else run.answerErrors += 1;
            continue;
          }
        }
        if (user.bank.longCoolDown && deposit.status === 'initialized') {
          const item = await clients.depositItem(id);
          if (item && wakeOf(item) > Date.now() + PARK_AFTER_MS) {
            run.outcome = 'parked';
            break;
          }
        }
        if (plan.duplicates && duplicateRounds < 4 && random.chance(0.35)) {
          duplicateRounds += 1;
          await sendCopies(context, run, id, random);
        }
      }
      if (Date.now() > deadline) {
        run.outcome = 'stalled';
        break;
      }
      await sleep(random.int(700, 1_300));
    }
    if (plan.duplicates && run.outcome === 'final') await sendLateCopies(context, run, id, random);
  } finally {
    counters.inFlight -= 1;
  }
}

/** When a waiting deposit is next woken (a cool-down's end, a look-up after it, a claim's sleep). */
function wakeOf(item: DepositItem) {
  return Math.max(
    item.step === 'wait-cooldown' ? (item.cooldownUntil ?? 0) : 0,
    item.beneficiaryLookupAt ?? 0,
    item.sleepsUntil ?? 0,
  );
}

/**
 * Copies of the deposit's step messages, straight to the step queues: the live message again (so two
 * workers run the same step at once), an expiry of its question ahead of time, an old version's
 * message late, and a later step's (or version's) message early; each after a random delay, so they
 * also arrive out of order.
 *
 * Copies duplicate messages the system sends; they never forge one it never sends. The version that
 * records a transfer attempt is sent no message: only the sweeper re-drives it, after a stall, that is
 * once the step that wrote it died (so it ends TRANSFER_OUTCOME_UNKNOWN, by design, and the crash
 * points cover that). A forged message for it, run while the attempt's call is in flight, would end
 * the deposit the same way for no fault of the system. So the live copy of a deposit with an attempt
 * on record is of the message that woke its step (the version before), and early copies never go to
 * the transfer queue with a later version.
 */
async function sendCopies(context: RunContext, run: DepositRun, depositId: string, random: Random) {
  const item = await context.clients.depositItem(depositId);
  if (!item || item.step === 'completed') return;
  const { step } = item;
  const version = item.transferAttempt ? item.version - 1 : item.version;
  const messages: StepMessage[] = [];
  for (let copy = random.int(1, 3); copy > 0; copy -= 1) {
    messages.push({ depositId, step, version, kind: 'run', delaySeconds: random.int(0, 2) });
  }
  if (item.status === 'user_input_required' && random.chance(0.5)) {
    messages.push({ depositId, step, version, kind: 'expire-input', delaySeconds: random.int(0, 3) });
  }
  if (version > 0 && random.chance(0.6)) {
    messages.push({
      depositId,
      step: random.pick(steps),
      version: random.int(0, version - 1),
      kind: 'run',
      delaySeconds: random.int(0, 5),
    });
  }
  if (random.chance(0.5)) {
    const later = random.pick(steps);
    messages.push({
      depositId,
      step: later,
      version: later === 'transfer' ? version : version + random.int(0, 2),
      kind: 'run',
      delaySeconds: random.int(0, 4),
    });
  }
  await context.clients.sendStepMessages(messages);
  run.duplicateMessages += messages.length;
  context.counters.duplicateMessages += messages.length;
  run.copies.push(
    ...messages.map((message) => `${message.step}@v${message.version}+${message.delaySeconds ?? 0}s`),
  );
}

/** After the end: every step's message of the last versions, late. */
async function sendLateCopies(context: RunContext, run: DepositRun, depositId: string, random: Random) {
  const item = await context.clients.depositItem(depositId);
  if (!item) return;
  const messages = steps.flatMap((step) =>
    [0, 1, 2, 3]
      .map((back) => item.version - back)
      .filter((version) => version >= 0)
      .map(
        (version): StepMessage => ({ depositId, step, version, kind: 'run', delaySeconds: random.int(0, 5) }),
      ),
  );
  await context.clients.sendStepMessages(messages);
  run.duplicateMessages += messages.length;
  context.counters.duplicateMessages += messages.length;
}

/**
 * The faults of the whole run, on a tick: schedules fired early (and twice), the webhook receiver
 * down for a while, and once, mid-run, a restart of the step workers.
 */
function chaosLoop(context: RunContext) {
  const { clients, counters, stack } = context;
  const random = randomStream(context.plan.seed, 'chaos');
  const total = context.plan.deposits.length;
  const restartAfter = Math.max(1, Math.floor(total * (0.3 + random.next() * 0.3)));
  const restartPauseMs = random.int(500, 2_500);
  // One outage of the webhook receiver for sure, while deposits are in flight; more at random.
  const outageAfter = Math.max(1, Math.floor(total * (0.2 + random.next() * 0.3)));
  let outages = 0;
  let stopped = false;
  const restart = async () => {
    if (counters.restart) return;
    const startedAt = Date.now();
    counters.restart = { afterDeposits: counters.started, pauseMs: restartPauseMs, tookMs: 0 };
    await stack.restartWorkers({ pauseMs: restartPauseMs });
    counters.restart.tookMs = Date.now() - startedAt;
    context.say(
      `chaos: step workers restarted after ${counters.restart.afterDeposits} deposits started (${restartPauseMs} ms without workers)`,
    );
  };
  const loop = (async () => {
    while (!stopped) {
      await sleep(random.int(1_000, 2_000));
      if (stopped) break;
      try {
        if (random.chance(0.4)) {
          const { schedules } = await clients.schedules();
          const sorted = schedules.sort((a, b) => a.Name.localeCompare(b.Name));
          const chosen = random.shuffle(sorted).slice(0, random.int(1, 3));
          for (const schedule of chosen) {
            const times = random.chance(0.5) ? 2 : 1;
            for (let fire = 0; fire < times; fire += 1) {
              if ((await clients.fireSchedule(schedule)) === 200) {
                counters.scheduleFires += 1;
                counters.schedulesFired.add(schedule.Name);
              }
            }
          }
        }
        const due = outages === 0 && counters.started >= outageAfter;
        if (due || (random.chance(0.12) && counters.inFlight >= 8)) {
          // The receiver is down for a few seconds: it refuses whatever comes, then takes deliveries again.
          outages += 1;
          const downMs = random.int(1_000, 4_000);
          const before = await clients.refusedDeliveries();
          await clients.refuseDeliveries(1_000_000);
          await sleep(downMs);
          await clients.refuseDeliveries(0);
          counters.outages += 1;
          counters.outageMs += downMs;
          counters.outageRefusals += (await clients.refusedDeliveries()) - before;
        }
        if (!counters.restart && counters.started >= restartAfter) await restart();
      } catch (error) {
        context.say(`chaos: a fault could not be injected: ${(error as Error).message}`);
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      // A run too short to reach it still restarts once.
      await restart();
    },
  };
}

function faultFigures(
  plan: ChaosPlan,
  runs: DepositRun[],
  counters: Counters,
  crashes: { fired: Record<string, number>; armed: number },
  refused: number,
) {
  const providerKinds: Record<string, number> = {};
  for (const user of plan.users)
    for (const fault of user.providerFaults) providerKinds[fault.kind] = (providerKinds[fault.kind] ?? 0) + 1;
  const crashArmed: Record<string, number> = {};
  for (const user of plan.users)
    for (const crash of user.crashes) crashArmed[crash.point] = (crashArmed[crash.point] ?? 0) + crash.times;
  return {
    providerFaults: {
      users: plan.users.filter((user) => user.providerFaults.length > 0).length,
      rulesByKind: providerKinds,
    },
    crashes: {
      users: plan.users.filter((user) => user.crashes.length > 0).length,
      armedByPoint: crashArmed,
      firedByPoint: crashes.fired,
      neverFired: crashes.armed,
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
    workerRestart: counters.restart ?? 'none',
  };
}

/** Runs `work` over `items`, at most `size` at a time. */
async function pool<T>(items: T[], size: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(size, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next] as T;
        next += 1;
        await work(item);
      }
    }),
  );
}

/** The random part of an access token (`<connection>.at_<random>`): the secret itself. */
function secretPart(token: string) {
  return token.slice(token.indexOf('.') + 1);
}

function normalise(accountNumber: string) {
  return accountNumber.replace(/[\s-]/g, '');
}

function localWalletAccountNumber(walletAccountID: string) {
  const wallet = localWallets.find((candidate) => candidate.id === walletAccountID);
  return normalise(wallet?.accountNumber ?? '');
}

const seconds = (ms: number) => Number((ms / 1000).toFixed(1));
