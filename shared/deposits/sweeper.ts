/**
 * The sweeper, on a recurring schedule: a lost message or schedule must not strand a deposit.
 *   1. finds the deposits in flight whose check time has passed (the sparse index), a page at a
 *      time, each from where the page before ended, until none is left: a hundred stuck deposits do
 *      not hide the others, and an index that still shows the deposits just deferred (it is
 *      eventually consistent) neither ends the run early nor has a deposit re-driven twice;
 *   2. moves each one's check time on, with a delay that doubles with each re-drive since it last
 *      moved (so one that stays stuck is looked at less and less often);
 *   3. sends it its own step's message again (duplicates are dropped by the version), or, for a
 *      deposit waiting for its caller, the expiry of the question.
 */
import type { Clock } from '#shared/clock';
import type { Deposit, StepMessageTo, WorkStep } from './model.ts';
import type { DepositSettings, DueDeposit, DueDeposits, DuePosition, StepQueues } from './ports.ts';
import type { SendsOf } from './reach.ts';

export interface SweepContext {
  due: DueDeposits;
  queues: StepQueues<SendsOf<'sweeper'>>;
  clock: Pick<Clock, 'now'>;
  settings: Pick<DepositSettings, 'stallAfterMs'>;
}

/** The longest the sweeper leaves a stuck deposit between two looks. */
const MAX_REDRIVE_DELAY_MS = 3_600_000;
/** Most deposits re-driven by one run (the next run, a minute later, takes the rest). */
const MAX_PER_RUN = 5_000;

/** Re-drives every deposit due a look; answers how many. */
export async function sweep(ctx: SweepContext, pageSize = 100): Promise<number> {
  const now = ctx.clock.now();
  const seen = new Set<string>();
  let after: DuePosition | undefined;
  do {
    const page = await ctx.due.findDue(now, Math.min(pageSize, MAX_PER_RUN - seen.size), after);
    for (const deposit of page.deposits) {
      if (seen.has(deposit.id)) continue;
      seen.add(deposit.id);
      await redrive(ctx, deposit, now);
    }
    after = page.last;
  } while (after !== undefined && seen.size < MAX_PER_RUN);
  return seen.size;
}

async function redrive(ctx: SweepContext, deposit: DueDeposit, now: number) {
  if (deposit.step === 'completed') return;
  const redrives = deposit.redrives ?? 0;
  const delay = Math.min(MAX_REDRIVE_DELAY_MS, ctx.settings.stallAfterMs * 2 ** Math.min(redrives, 20));
  // Deferred first: a deposit that moved meanwhile has its own check time and messages.
  if (!(await ctx.due.defer(deposit, now + delay))) return;
  const message = redriveMessage(deposit);
  if (message) await ctx.queues.send(message);
}

/**
 * The message that moves a deposit in flight on: its own step's (duplicates are dropped by the
 * version), or, for a deposit waiting for its caller, the expiry of the question (which does nothing
 * before the question expires). None for a finished deposit. The sweeper's and the operator's redrive.
 */
export function redriveMessage(
  deposit: Pick<Deposit, 'id' | 'step' | 'status' | 'version'>,
): StepMessageTo<WorkStep> | undefined {
  if (deposit.step === 'completed') return undefined;
  const message = { depositId: deposit.id, step: deposit.step, version: deposit.version };
  if (deposit.status === 'user_input_required') return { ...message, kind: 'expire-input' };
  if (deposit.status === 'initialized') return { ...message, kind: 'run' };
  return undefined;
}
