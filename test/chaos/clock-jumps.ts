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

/** When an instant came, in local time: where the jump that passed over it landed, or itself. */
export function cameAt(instant: number, jumps: ClockJump[] | undefined): number {
  return jumps?.find((jump) => instant > jump.from && instant <= jump.to)?.to ?? instant;
}

/** A real-time instant in the stack's clock, which the jumps before it moved on. */
export function inLocalTime(realAt: number, jumps: ClockJump[] | undefined): number {
  let offset = 0;
  for (const jump of jumps ?? []) if (realAt + offset >= jump.from) offset += jump.to - jump.from;
  return realAt + offset;
}
