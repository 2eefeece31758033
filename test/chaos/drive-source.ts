/**
 * A chaos run's payment sources (`PlannedSource`): the user prepares one at a bank with a cool-down,
 * before its deposits (which then follow the source's wake-up) or alongside them (while they wait
 * already), as a wallet backend does at onboarding. Its owner may cancel it mid-cool-down, and the
 * harness may delete its own wake-up schedule, as if lost: the sweeper must then wake it, and its
 * followers (a wake-up its worker died before arming is lost already: the same for the sweeper).
 * Read until it ends: ready, failed (cancelled included), or parked on a cool-down longer than the
 * run (which the local clock then ends, `harness.ts`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { SourceRun } from './audit.ts';
import type { Connection, DepositItem, Reply } from './clients.ts';
import { OTP, PARK_AFTER_MS, type RunContext } from './context.ts';
import type { PlannedUser } from './plan.ts';
import { randomStream } from './random.ts';

/** Creates the user's source; resolves once it cools down (or ends), so deposits can follow it. */
export async function startSource(
  context: RunContext,
  user: PlannedUser,
  connection: Connection,
  run: SourceRun,
) {
  const plan = user.source;
  if (!plan) return;
  const { clients } = context;
  for (let attempt = 1; attempt <= 5 && !run.id; attempt += 1) {
    const created: Reply = await clients
      .createSource(connection, plan.idempotencyKey, user.bank.walletAccountID)
      .catch((error: unknown) => ({ status: 0, body: { error: String(error) } }));
    if ((created.status === 202 || created.status === 200) && created.body.sourceID)
      run.id = created.body.sourceID;
    else await sleep(500 * attempt);
  }
  if (!run.id) run.findings.push('the source was never accepted');
}

/** When a waiting deposit (or source) is next woken: a cool-down's end, a look-up after it, a claim's sleep. */
export function wakeOf(item: DepositItem) {
  return Math.max(
    item.step === 'wait-cooldown' ? (item.cooldownUntil ?? 0) : 0,
    item.beneficiaryWork?.lookupAt ?? 0,
    item.beneficiaryWork?.sleepsUntil ?? 0,
  );
}

/** Where an item waits: its step, version and status, its check time and its recorded wake-up. */
function waitOf(item: DepositItem) {
  const at = (instant: number | undefined) => (instant ? new Date(instant).toISOString() : 'none');
  return `${item.step} v${item.version} ${item.status}, check at ${at(item.checkAt)}, wake-up ${at(wakeOf(item) || undefined)}`;
}

/** Waits (bounded) until the source is past its first step: cooling down, asking, or ended. */
export async function untilPrepared(context: RunContext, connection: Connection, run: SourceRun) {
  if (!run.id) return;
  for (let tries = 0; tries < 40; tries += 1) {
    const read = await context.clients.readSource(connection, run.id).catch(() => undefined);
    if (read?.status === 200 && read.body.status !== 'initialized') return;
    await sleep(500);
  }
}

/** Reads the source until it ends, cancelling it or losing its schedule as planned. */
export async function driveSource(
  context: RunContext,
  user: PlannedUser,
  connection: Connection,
  run: SourceRun,
) {
  const plan = user.source;
  const id = run.id;
  if (!plan || !id) return;
  const { clients, counters } = context;
  const random = randomStream(context.plan.seed, 'source', user.index);
  const deadline = Date.now() + context.depositDeadlineMs;
  const acceptedAt = Date.now();
  let answered: string | undefined;
  let unarmed: Unarmed | undefined;
  for (;;) {
    const read = await clients.readSource(connection, id).catch(() => undefined);
    const source = read?.status === 200 ? read.body : undefined;
    if (source?.status === 'ready' || source?.status === 'failed') {
      run.outcome = 'final';
      return;
    }
    if (source?.status === 'user_input_required' && source.inputExpiresAt !== answered) {
      const userInputs = (source.userInputs as { id: string; index: number; query: string }[]).map(
        (input) => ({
          ...input,
          answer: OTP,
        }),
      );
      const reply = await clients
        .createSource(connection, plan.idempotencyKey, user.bank.walletAccountID, userInputs)
        .catch(() => undefined);
      if (reply?.status === 200) answered = source.inputExpiresAt;
    }
    // Its own wake-up schedule lost, as soon as it is armed (a short cool-down's fires in seconds).
    // A call of the scheduler's controls that fails (a loaded machine) is made again at the next read.
    if (source !== undefined && plan.losesSchedule && !run.scheduleDeleted && !run.scheduleNeverArmed) {
      const lost = await loseOwnSchedule(context, id).catch(() => 'failed' as const);
      if (lost === 'deleted') {
        run.scheduleDeleted = true;
        counters.sourceSchedulesLost += 1;
      }
      if (lost === 'none') unarmed = await unarmedWait(context, id, unarmed);
      if (unarmed && Date.now() - unarmed.since > UNARMED_AFTER_MS) run.scheduleNeverArmed = unarmed.waiting;
    }
    // Its owner's cancel, at its moment after the source was accepted: mid-cool-down, mostly.
    if (plan.cancelAfterMs !== undefined && !run.cancel && Date.now() >= acceptedAt + plan.cancelAfterMs) {
      const cancelled: Reply = await clients
        .cancelSource(connection, id)
        .catch(() => ({ status: 0, body: {} }));
      run.cancel = {
        status: cancelled.status,
        ...(cancelled.body.type ? { type: cancelled.body.type } : {}),
      };
    }
    // Waiting on the day-long bank (cooling down, or following a deposit's claim until its look-up):
    // parked, once its cancel (if any) is behind it.
    // Not while its schedule is still to be lost: the wake-up is on the item before its schedule exists.
    const hunting = plan.losesSchedule && !run.scheduleDeleted && !run.scheduleNeverArmed;
    if (
      user.bank.longCoolDown &&
      source !== undefined &&
      !hunting &&
      (plan.cancelAfterMs === undefined || run.cancel)
    ) {
      const item = await clients.depositItem(id);
      if (item && wakeOf(item) > Date.now() + PARK_AFTER_MS) {
        run.outcome = 'parked';
        return;
      }
    }
    if (Date.now() > deadline) {
      run.outcome = 'stalled';
      const item = await clients.depositItem(id).catch(() => undefined);
      run.stalledAt = item ? waitOf(item) : 'its item unread';
      return;
    }
    // Quick while its schedule is still to be lost: a short cool-down's schedule fires in seconds.
    await sleep(hunting ? 100 : random.int(500, 1_000));
  }
}

/**
 * How long a source may wait far ahead with no schedule of its own before its wake-up counts as never
 * armed: its worker died between the write and the schedule (a crash point, a killed process), and
 * only the sweeper wakes it, at its instant, as it would after a lost schedule. Many times what a
 * step's message takes to be delivered again (the visibility timeout) on a loaded machine.
 */
const UNARMED_AFTER_MS = 45_000;

/** A source seen waiting far ahead with no schedule: since when, at which version. */
interface Unarmed {
  version: number;
  since: number;
  /** Where it waited, and for what: its step, version and wake-up. */
  waiting: string;
}

/** Deletes the source's own wake-up schedule, once it is armed: `deleted`, or `none` armed yet. */
async function loseOwnSchedule(context: RunContext, id: string) {
  const { schedules } = await context.clients.schedules();
  const own = schedules.find((schedule) => schedule.Name.startsWith(id));
  if (!own) return 'none';
  return (await context.clients.deleteSchedule(own)) === 200 ? 'deleted' : 'failed';
}

/** The source's wait with no schedule: kept while it waits far ahead at the same version, else none. */
async function unarmedWait(context: RunContext, id: string, seen: Unarmed | undefined) {
  const item = await context.clients.depositItem(id).catch(() => undefined);
  const wake = item ? wakeOf(item) : 0;
  if (!item || wake <= Date.now() + PARK_AFTER_MS) return undefined;
  if (seen?.version === item.version) return seen;
  const waiting = `${item.step} v${item.version} until ${new Date(wake).toISOString()}`;
  return { version: item.version, since: Date.now(), waiting };
}
