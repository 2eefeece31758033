/**
 * What a chaos plan draws last, each on a stream of its own, so that a seed's other choices stay
 * those it drew before these were added: which users end with a repeat, and which deposits' next
 * event the relay cannot relay.
 */
import type { PlannedUser } from './plan.ts';
import { randomStream } from './random.ts';

/** Of the users with several deposits, those whose last one is a repeat, started after the others. */
const REPEAT_SHARE = 0.4;

/**
 * Repeats, drawn on their own stream after everything else (a seed's other choices stay its own):
 * the last deposit of a share of the users with several, not below the minimum.
 */
export function planRepeats(seed: number, users: PlannedUser[]) {
  const random = randomStream(seed, 'repeats', 0);
  for (const user of users) {
    const last = user.deposits.at(-1);
    if (user.deposits.length < 2 || !last || last.belowMinimum || !random.chance(REPEAT_SHARE)) continue;
    last.afterOthers = true;
  }
}

/** Deposits whose next event the relay cannot relay: a few in every run, the first ones surely. */
const RELAY_FAULT_SHARE = 0.03;
const RELAY_FAULT_COVERAGE = 2;

/** Relay faults, drawn on their own stream after everything else. */
export function planRelayFaults(seed: number, users: PlannedUser[]) {
  const random = randomStream(seed, 'relay-faults', 0);
  let planned = 0;
  for (const deposit of users.flatMap((user) => user.deposits)) {
    if (planned >= RELAY_FAULT_COVERAGE && !random.chance(RELAY_FAULT_SHARE)) continue;
    deposit.relayFault = true;
    planned += 1;
  }
}
