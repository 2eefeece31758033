/**
 * The callers of a chaos run: each user gets its connection, its decoys and its faults, and drives
 * its deposits together as a wallet backend would: creates (repeated with the same key when it did
 * not answer), reads until the end, answers the bank's questions (but for a deliberate few), and
 * meanwhile sends copies of the deposit's step messages (`disturbances.ts`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { localWallets } from '#infra/local/wallets';
import type { DepositRun, UserRun } from './audit.ts';
import type { Connection, Reply } from './clients.ts';
import {
  OTP,
  PARK_AFTER_MS,
  type RunContext,
  SANDBOX_INPUT_TTL_SECONDS,
  SLOW_TRANSFER_SECONDS,
} from './context.ts';
import { decoyBeneficiary } from './decoys.ts';
import { sendCopies, sendLateCopies } from './disturbances.ts';
import { driveSource, startSource, untilPrepared, wakeOf } from './drive-source.ts';
import type { PlannedDeposit, PlannedUser } from './plan.ts';
import { randomStream } from './random.ts';

/** One user: its connection, its faults, and its deposits driven together. */
export async function runUser(context: RunContext, user: UserRun) {
  const { clients } = context;
  const plan = user.plan;
  let connection: Connection | undefined;
  for (let attempt = 1; !connection; attempt += 1) {
    try {
      connection = await clients.createUser(plan.bank.bankId, SANDBOX_INPUT_TTL_SECONDS, {
        ...(plan.slowTransfers ? { transferDelaySeconds: SLOW_TRANSFER_SECONDS } : {}),
      });
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
    // Before the faults: a decoy's creation is the harness's own, and no rule is spent on it.
    if (plan.decoys) user.decoys = await registerDecoys(context, plan, connection);
  } catch (error) {
    user.error = `decoys not registered: ${(error as Error).message}`;
    return;
  }
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
    for (const fault of plan.dynamoDbFaults ?? []) {
      await clients.armDynamoDbFault(connection, fault.kind, fault.times);
    }
  } catch (error) {
    user.error = `faults not injected: ${(error as Error).message}`;
    return;
  }
  const drive = (deposit: PlannedDeposit) =>
    driveDeposit(context, plan, connection, deposit).catch((error: unknown) => {
      context.runs[deposit.index]?.findings.push(
        `the harness failed: ${(error as Error).stack ?? String(error)}`,
      );
    });
  // A repeat waits for the others (and the source) to end: it comes as a wallet's next top-up does.
  const repeats = plan.deposits.filter((deposit) => deposit.afterOthers);
  const deposits = () => plan.deposits.filter((deposit) => !deposit.afterOthers).map(drive);
  await driveAll(connection);
  for (const repeat of repeats) await drive(repeat);

  async function driveAll(connection: Connection) {
    const source = context.sources.get(plan.index);
    if (!plan.source || !source) {
      await Promise.all(deposits());
      return;
    }
    const harnessFailed = (error: unknown) => {
      source.findings.push(`the harness failed: ${(error as Error).stack ?? String(error)}`);
    };
    if (plan.source.when === 'first') {
      // Prepared first: the deposits start once it is past its first step, and follow its wake-up.
      await startSource(context, plan, connection, source).catch(harnessFailed);
      await untilPrepared(context, connection, source);
      await Promise.all([driveSource(context, plan, connection, source).catch(harnessFailed), ...deposits()]);
      return;
    }
    // Alongside: the deposits are already waiting when the source comes.
    const random = randomStream(context.plan.seed, 'source-start', plan.index);
    const alongside = async () => {
      await sleep(random.int(500, 3_000));
      await startSource(context, plan, connection, source);
      await driveSource(context, plan, connection, source);
    };
    await Promise.all([alongside().catch(harnessFailed), ...deposits()]);
  }
}

/**
 * The user's decoys, registered at its bank before its deposits run, with the ids the bank lists for
 * them (the user's only beneficiaries yet).
 */
async function registerDecoys(context: RunContext, plan: PlannedUser, connection: Connection) {
  const { clients } = context;
  const wallet = localWallets.find((candidate) => candidate.id === plan.bank.walletAccountID);
  if (!wallet) throw new Error(`no local wallet ${plan.bank.walletAccountID}`);
  const decoys = (plan.decoys ?? []).map((kind) => ({ kind, beneficiary: decoyBeneficiary(kind, wallet) }));
  for (const { beneficiary } of decoys) await clients.createBeneficiary(connection, beneficiary);
  const listed = await clients.beneficiaries(connection);
  const entries = (listed.body.beneficiaries ?? []) as { id: string }[];
  if (listed.status !== 200 || entries.length !== decoys.length)
    throw new Error(`decoys not listed: ${listed.status} ${JSON.stringify(listed.body).slice(0, 300)}`);
  // The bank lists them oldest first: in the order registered.
  return decoys.map(({ kind, beneficiary }, index) => ({
    kind,
    iban: beneficiary.iban,
    id: entries[index]?.id ?? '',
  }));
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
  // Its next event cannot be relayed: the relay sets it aside, and the operator redrives it later.
  if (plan.relayFault) await clients.armRelayFault(id);
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
    const cancelAt = plan.cancelAfterMs === undefined ? undefined : Date.now() + plan.cancelAfterMs;
    let answered: string | undefined;
    let duplicateRounds = 0;
    let redriveRounds = 0;
    for (;;) {
      // The owner's cancel, at its moment, racing whatever step the deposit is at.
      if (cancelAt !== undefined && !run.cancel && Date.now() >= cancelAt) {
        const cancelled: Reply = await clients
          .cancelDeposit(connection, id)
          .catch(() => ({ status: 0, body: {} }));
        run.cancel = {
          status: cancelled.status,
          ...(cancelled.body.type ? { type: cancelled.body.type } : {}),
        };
        counters.cancels[cancelled.status] = (counters.cancels[cancelled.status] ?? 0) + 1;
      }
      // An operator's redrive at a random moment: answered, or refused with a reason, never harmful.
      if (plan.operatorRedrives && redriveRounds < 3 && random.chance(0.3)) {
        redriveRounds += 1;
        const redriven: Reply = await clients.operator.redrive(id).catch(() => ({ status: 0, body: {} }));
        const answer = redriven.body.type
          ? `${redriven.status} ${redriven.body.type}`
          : String(redriven.status);
        run.operatorRedrives[answer] = (run.operatorRedrives[answer] ?? 0) + 1;
      }
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
