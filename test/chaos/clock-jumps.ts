/**
 * The local clock's moves in a chaos run (`long-cool-downs.ts`): the day-long bank's cool-downs, and
 * the waits the parked met after it, end within the run. The run's real-time instants and the
 * stack's local ones are told apart here.
 */

/** One move of the local clock: the local time just before and just after it. */
export interface ClockJump {
  from: number;
  to: number;
}

/**
 * How long after `instant` a move at `movedAt` came, in real time (both in local time): the local
 * time between them less what the jumps passed over in it. An instant a jump passed over came when
 * the jump landed; a jump between an instant and the move (another's wait jumped over while this one
 * was due) took no time.
 */
export function realDelay(instant: number, movedAt: number, jumps: ClockJump[] | undefined): number {
  let jumped = 0;
  for (const jump of jumps ?? [])
    jumped += Math.max(0, Math.min(jump.to, movedAt) - Math.max(jump.from, instant));
  return movedAt - instant - jumped;
}

/** A real-time instant in the stack's clock, which the jumps before it moved on. */
export function inLocalTime(realAt: number, jumps: ClockJump[] | undefined): number {
  let offset = 0;
  for (const jump of jumps ?? []) if (realAt + offset >= jump.from) offset += jump.to - jump.from;
  return realAt + offset;
}
