/**
 * The end of a chaos run's long cool-downs: deposits and payment sources at the day-long bank park
 * (their wake-up armed) while the run goes on; once everything else has settled, the local clock
 * moves a day forward, as a developer's can (`POST /_local/clock`), so their wake-ups fire and they
 * end within the run, through the same steps and schedules as in a day's time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunContext } from './context.ts';

/** A little more than the longest cool-down of the sandbox's banks (a day). */
const DAY_AND_MORE_S = 25 * 3_600;

/**
 * Moves the clock past every parked wake-up and waits (bounded) for the parked to end; answers how
 * many ended, and the jump (local time before and after), which a wait's lateness is measured from.
 */
export async function endLongCoolDowns(
  context: RunContext,
  boundMs = 180_000,
): Promise<{ parked: number; ended: number; jump?: { from: number; to: number } }> {
  const parked = [
    ...context.runs.filter((run) => run.outcome === 'parked' && run.id),
    ...[...context.sources.values()].filter((run) => run.outcome === 'parked' && run.id),
  ];
  if (parked.length === 0) return { parked: 0, ended: 0 };
  const jump = await context.clients.advanceClock(DAY_AND_MORE_S);
  context.say(`chaos: the local clock moved ${DAY_AND_MORE_S / 3_600} h forward for ${parked.length} parked`);
  const deadline = Date.now() + boundMs;
  let ended = 0;
  for (const run of parked) {
    for (;;) {
      const item = await context.clients.depositItem(run.id as string);
      if (item?.status === 'done' || item?.status === 'failed') {
        run.outcome = 'final';
        ended += 1;
        break;
      }
      if (Date.now() > deadline) {
        run.outcome = 'stalled';
        const way = (item?.history ?? [])
          .slice(-6)
          .map((entry) => `${entry.step}/${entry.status}${entry.note ? ` (${entry.note})` : ''}`)
          .join(' > ');
        context.say(`chaos: parked ${run.id} had not ended ${boundMs / 1000} s after the jump: ${way}`);
        break;
      }
      await sleep(1_000);
    }
  }
  return { parked: parked.length, ended, jump };
}
