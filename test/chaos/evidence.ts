/**
 * After a chaos run: the webhooks drained (every final state delivered, or a bound), then what the
 * audit judges gathered from the stack: the table's items, the receiver's deliveries, the schedules
 * left, the queues' depths, each user's ledger and beneficiaries at the bank, and, for a final state
 * the receiver never heard, where its event was last seen.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { localWallets } from '#infra/local/wallets';
import { maskedAccount } from '#shared/sandbox/operations/beneficiaries';
import type { DepositRun, Ledger, UserRun } from './audit.ts';
import type { Clients, Delivery } from './clients.ts';
import { OTP, pool } from './context.ts';

const isFinal = (delivery: Delivery) =>
  delivery.type === 'deposit.done' || delivery.type === 'deposit.failed';

/** Waits until the receiver heard every final state (of deposits that reached one), at most `boundMs`. */
export async function drainWebhooks(clients: Clients, runs: DepositRun[], boundMs = 90_000) {
  const finalIds = runs.filter((run) => run.outcome === 'final' && run.id).map((run) => run.id as string);
  const deadline = Date.now() + boundMs;
  // A deposit an operator resolved has a later final state than the one its driver saw: its own event.
  const resolvedIds = runs
    .filter((run) => run.resolved?.status === 200 && run.id)
    .map((run) => run.id as string);
  for (;;) {
    const { deliveries } = await clients.deliveries();
    const heard = new Set(deliveries.filter(isFinal).map((delivery) => delivery.depositId));
    const resolution = new Set(
      deliveries.filter((delivery) => isFinal(delivery) && delivery.data.resolved).map((d) => d.depositId),
    );
    const drained = finalIds.every((id) => heard.has(id)) && resolvedIds.every((id) => resolution.has(id));
    if (drained || Date.now() > deadline) return finalIds;
    await sleep(1_000);
  }
}

export async function gatherEvidence(
  clients: Clients,
  users: UserRun[],
  runs: DepositRun[],
  finalIds: string[],
) {
  const crashes = await clients.crashReport();
  const dynamoDbFaults = await clients.dynamoDbFaultReport();
  const receiver = await clients.deliveries();
  const { deliveries } = receiver;
  const scheduledDeposits = new Set<string>();
  for (const schedule of (await clients.schedules()).schedules) {
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
      .filter((delivery) => delivery.verified && isFinal(delivery))
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
  await pool(users, 8, async (user) => {
    const connection = user.connection;
    if (!connection) return;
    ledgers.set(user.plan.index, await clients.ledger(connection));
    const bank = user.plan.bank;
    // The list shows every beneficiary only at banks that do not hide new ones in their cool-down,
    // or whose cool-down has passed.
    if (!bank.beneficiaries || bank.longCoolDown) return;
    await clients.setFaults(connection, []);
    // The bank may still hold the connection for a question that expired: ask again a while.
    let listed = await clients.beneficiaries(connection);
    for (let tries = 0; listed.status === 409 && tries < 30; tries += 1) {
      await sleep(1_000);
      listed = await clients.beneficiaries(connection);
    }
    // A bank that asks on its list: answered as the deposits' questions are.
    if (listed.status === 200 && listed.body.status === 'user_input_required') {
      const userInputs = (listed.body.userInputs as { id: string; index: number; query: string }[]).map(
        (input) => ({ ...input, answer: OTP }),
      );
      listed = await clients.beneficiaries(connection, { jobID: listed.body.jobID, userInputs });
    }
    if (listed.status === 200) {
      // A bank that masks its list (SANDBOX_MASKED) shows it as the sandbox masks it: the user's only
      // beneficiaries in the run are the wallet's and its decoys (whose ids the harness took when it
      // registered them), so its masked form counts them there, decoys left out.
      const wallet = localWallets.find((candidate) => candidate.id === bank.walletAccountID);
      const shown = new Set(wallet ? [normalise(wallet.accountNumber), maskedAccount(wallet)] : []);
      const decoys = new Set(user.decoys?.map((decoy) => decoy.id));
      const count = ((listed.body.beneficiaries ?? []) as { id: string; accountNumber?: string }[]).filter(
        (beneficiary) => shown.has(normalise(beneficiary.accountNumber ?? '')) && !decoys.has(beneficiary.id),
      ).length;
      beneficiaries.set(user.plan.index, count);
    } else {
      runs[user.plan.deposits[0]?.index ?? 0]?.findings.push(
        `the bank's beneficiary list answered ${listed.status} after the run`,
      );
    }
  });
  return {
    crashes,
    dynamoDbFaults,
    receiver,
    deliveries,
    scheduledDeposits,
    items,
    queues,
    notes,
    ledgers,
    beneficiaries,
  };
}

/** Every secret the run handed out, to look for in the table and the captured output. */
export function secretsOf(appSecret: string, users: UserRun[]): string[] {
  return [
    appSecret,
    ...users.flatMap((user) =>
      user.connection ? [secretPart(user.connection.accessToken), user.connection.userSecret] : [],
    ),
  ];
}

/** The random part of an access token (`<connection>.at_<random>`): the secret itself. */
function secretPart(token: string) {
  return token.slice(token.indexOf('.') + 1);
}

function normalise(accountNumber: string) {
  return accountNumber.replace(/[\s-]/g, '');
}
