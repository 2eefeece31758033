/**
 * The end of a chaos run's long cool-downs: deposits and payment sources at the day-long bank park
 * (their wake-up armed) while the run goes on; once everything else has settled, the local clock
 * moves a day forward, as a developer's can (`POST /_local/clock`), so their wake-ups fire and they
 * end within the run, through the same steps and schedules as in a day's time. A parked one that
 * then waits again (a cool-down refusal of its transfer, a claim's sleep) has the clock moved past
 * that wait too, a few times at most: the run has nothing else left to wait for.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClockJump } from './clock-jumps.ts';
import type { RunContext } from './context.ts';
import { wakeOf } from './drive-source.ts';

/** A little more than the longest cool-down of the sandbox's banks (a day). */
const DAY_AND_MORE_S = 25 * 3_600;
/** The clock's moves after the first, past the waits the parked meet once woken. */
const FURTHER_JUMPS = 4;
/** A wait shorter than this is waited out: its wake-up is about to fire anyway. */
const WORTH_A_JUMP_MS = 5_000;

/**
 * Moves the clock past every parked wake-up and waits (bounded) for the parked to end; answers how
 * many ended, and the jumps (local time before and after each), which a wait's lateness is measured from.
 */
export async function endLongCoolDowns(
  context: RunContext,
  boundMs = 180_000,
): Promise<{ parked: number; ended: number; jumps: ClockJump[] }> {
  const parked = [
    ...context.runs.filter((run) => run.outcome === 'parked' && run.id),
    ...[...context.sources.values()].filter((run) => run.outcome === 'parked' && run.id),
  ];
  if (parked.length === 0) return { parked: 0, ended: 0, jumps: [] };
  const jumps: ClockJump[] = [];
  // The stack's clock less this process's: what the jumps have added so far.
  let ahead = 0;
  const jump = async (seconds: number) => {
    const moved = await context.clients.advanceClock(seconds);
    jumps.push(moved);
    ahead = moved.to - Date.now();
  };
  await jump(DAY_AND_MORE_S);
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
      const waitMs = item ? wakeOf(item) - (Date.now() + ahead) : 0;
      if (waitMs > WORTH_A_JUMP_MS && jumps.length <= FURTHER_JUMPS) {
        await jump(Math.ceil(waitMs / 1000) + 1);
        context.say(
          `chaos: the local clock moved ${Math.ceil(waitMs / 1000) + 1} s forward for ${run.id}'s wait`,
        );
      }
      await sleep(1_000);
    }
  }
  return { parked: parked.length, ended, jumps };
}
