/**
 * The local stack's clock, for the local stack only: the system clock, which a developer or a test
 * can move forward, so that a bank's day-long beneficiary cool-down passes in a moment. It moves for
 * the whole process at once (the sandbox's banks, the deposit steps, the local scheduler), so the
 * provider and the orchestrator always agree on the time. Production code carries no seam for it:
 * `installLocalClock` replaces `systemClock.now`, which every handler reads the time through. Only
 * the time read moves; waits (`sleep`), timeouts and the SDKs' request signing keep real time.
 * Moved through `POST /_local/clock` on the deposits gateway.
 */
import { systemClock } from '#shared/clock';

let shiftMs = 0;
const listeners = new Set<() => void>();

export const localClock = {
  now: () => Date.now() + shiftMs,
  /** How far ahead of real time the clock is, in ms. */
  shift: () => shiftMs,
  /** Moves the clock forward by `ms` (never back: the past does not happen twice). */
  advance(ms: number) {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward');
    shiftMs += ms;
    for (const listener of listeners) listener();
  },
  /** Told each time the clock moves forward (the local scheduler re-arms its timers). */
  onAdvance(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

let installed = false;

/** Makes `systemClock` read the local clock, in this process; once. */
export function installLocalClock() {
  if (installed) return;
  installed = true;
  systemClock.now = () => localClock.now();
}
