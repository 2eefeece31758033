/**
 * Time, as the domains see it: the current instant and a way to wait. The system clock in the
 * handlers; unit tests give a manual clock (`test/support/manual-clock.ts`), so expiries,
 * cool-downs, latency and timeouts need no real time.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Resolves once `ms` milliseconds have passed on this clock. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms) => {
    await sleep(ms);
  },
};
