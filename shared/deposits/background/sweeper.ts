/**
 * The sweeper, on a recurring schedule: a lost message or schedule must not strand a deposit.
 *   1. finds the deposits in flight whose check time has passed (the sparse index), a page at a
 *      time, each from where the page before ended, until none is left: a hundred stuck deposits do
 *      not hide the others, and an index that still shows the deposits just deferred (it is
 *      eventually consistent) neither ends the run early nor has a deposit re-driven twice, in
 *      this run or the next (a defer holds only at the count of re-drives its look found);
 *   2. re-drives them a few at a time (`REDRIVES_AT_ONCE`), each on its own: one whose defer or send
 *      throws is told to `failures` and counted, stays in the index for a later run, and the run
 *      goes on (one that moved on meanwhile, even by a write racing its ending transaction, is no
 *      failure: it has its own check time and messages);
 *   3. moves each one's check time on, with a delay that doubles with each re-drive since it last
 *      moved (so one that stays stuck is looked at less and less often);
 *   4. sends it its own step's message again (duplicates are dropped by the version), or, for a
 *      deposit waiting for its caller, the expiry of the question;
 *   5. stops taking deposits once the time it has left falls under `STOP_WITH_LEFT_MS`, or after
 *      `MAX_PER_RUN` of them: the rest stay due, and the next run, a minute later, takes them.
 */
import type { Clock } from '#shared/clock';
import type { Deposit, WorkStep } from '../model/deposit.ts';
import { messageFor, type StepMessageTo } from '../model/messages.ts';
import type { StepQueues } from '../ports/messaging.ts';
import type { DueDeposit, DueDeposits, DuePosition, RedriveFailures } from '../ports/records.ts';
import type { DepositSettings } from '../ports/settings.ts';
import type { SendsOf } from '../reach.ts';

export interface SweepContext {
  due: DueDeposits;
  queues: StepQueues<SendsOf<'steps-sweeper'>>;
  clock: Pick<Clock, 'now'>;
  settings: Pick<DepositSettings, 'stallAfterMs'>;
  /**
   * The time the run has left, in ms (in AWS, its Lambda's remaining time: real time, not the
   * clock, which the local stack may move on); without it only `MAX_PER_RUN` bounds the run.
   */
  timeLeftMs?: (() => number) | undefined;
  /** Told of each deposit the run could not re-drive. */
  failures?: RedriveFailures | undefined;
}

/** What a run did. */
export interface SweepRun {
  /** Deposits deferred and sent their message again. */
  redriven: number;
  /** Deposits that had moved on meanwhile (a new version, or their ending write under way): nothing to do. */
  moved: number;
  /** Deposits whose defer or send threw (each told to `failures`): left for a later run. */
  failed: number;
  /** Why the run stopped while deposits may still be due: its time, or its bound of `MAX_PER_RUN`. */
  cutShort?: 'time' | 'bound';
}

/** The longest the sweeper leaves a stuck deposit between two looks. */
const MAX_REDRIVE_DELAY_MS = 3_600_000;
/** Most deposits re-driven by one run (the next run, a minute later, takes the rest). */
const MAX_PER_RUN = 5_000;
/**
 * Re-drives under way at once: each is a write and a send, mostly waiting on the network, so a few
 * side by side fit `MAX_PER_RUN` in the function's timeout (test/bench/sweeper.ts).
 */
export const REDRIVES_AT_ONCE = 8;
/**
 * The run takes no more deposits once it has less time left than this: the re-drives under way
 * (each one write and one send, with the SDK's own retries) and the run's report end in it.
 */
export const STOP_WITH_LEFT_MS = 10_000;

/**
 * Re-drives every deposit due a look, `atOnce` at a time, within the run's time; answers what it did.
 */
export async function sweep(ctx: SweepContext, pageSize = 100, atOnce = REDRIVES_AT_ONCE): Promise<SweepRun> {
  const now = ctx.clock.now();
  const run: SweepRun = { redriven: 0, moved: 0, failed: 0 };
  const hasTime = () => (ctx.timeLeftMs ? ctx.timeLeftMs() >= STOP_WITH_LEFT_MS : true);
  const seen = new Set<string>();
  let after: DuePosition | undefined;
  do {
    if (!hasTime()) return { ...run, cutShort: 'time' };
    const page = await ctx.due.findDue(now, Math.min(pageSize, MAX_PER_RUN - seen.size), after);
    const wentThrough = await fewAtATime(page.deposits, atOnce, hasTime, async (deposit) => {
      if (seen.has(deposit.id)) return;
      seen.add(deposit.id);
      run[await redrive(ctx, deposit, now)] += 1;
    });
    if (!wentThrough) return { ...run, cutShort: 'time' };
    after = page.last;
  } while (after !== undefined && seen.size < MAX_PER_RUN);
  return after === undefined ? run : { ...run, cutShort: 'bound' };
}

/**
 * Runs `work` on each of `items`, in order, `width` at a time, taking the next only while `more()`
 * holds; answers whether it took them all. `work` never throws.
 */
async function fewAtATime<T>(
  items: readonly T[],
  width: number,
  more: () => boolean,
  work: (item: T) => Promise<void>,
): Promise<boolean> {
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (next < items.length && !stopped) {
      if (!more()) {
        stopped = true;
        return;
      }
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, items.length)) }, worker));
  return !stopped;
}

/** Re-drives one deposit; a failure is told and answered, never thrown (the run goes on). */
async function redrive(
  ctx: SweepContext,
  deposit: DueDeposit,
  now: number,
): Promise<'redriven' | 'moved' | 'failed'> {
  if (deposit.step === 'completed') return 'moved';
  const redrives = deposit.redrives ?? 0;
  const delay = Math.min(MAX_REDRIVE_DELAY_MS, ctx.settings.stallAfterMs * 2 ** Math.min(redrives, 20));
  // Deferred first: a deposit that moved meanwhile has its own check time and messages.
  try {
    if (!(await ctx.due.defer(deposit, now + delay))) return 'moved';
  } catch (error) {
    ctx.failures?.failed(deposit, 'defer', error);
    return 'failed';
  }
  const message = redriveMessage(deposit);
  try {
    if (message) await ctx.queues.send(message);
  } catch (error) {
    // Deferred but not sent: looked at again at the check time it was just given.
    ctx.failures?.failed(deposit, 'send', error);
    return 'failed';
  }
  return 'redriven';
}

/**
 * The message that moves a deposit in flight on: its own step's (duplicates are dropped by the
 * version), or, for a deposit waiting for its caller, the expiry of the question (which does nothing
 * before the question expires). None for a finished deposit. The sweeper's and the operator's redrive.
 */
export function redriveMessage(
  deposit: Pick<Deposit, 'id' | 'step' | 'status' | 'version' | 'trace'>,
): StepMessageTo<WorkStep> | undefined {
  if (deposit.step === 'completed') return undefined;
  if (deposit.status === 'user_input_required') return messageFor(deposit, deposit.step, 'expire-input');
  if (deposit.status === 'initialized') return messageFor(deposit, deposit.step);
  return undefined;
}
