// The service's time, as its answers give it (`now`): the local stack's clock can be moved forward
// (`POST /_local/clock`), and a deployed stage's differs from this browser's by its skew, so every
// countdown counts from the service's time, never the browser's.

/** How far the service's clock is ahead of this browser's, in ms (0 until an answer says). */
let offsetMs = 0;
let known = false;

/**
 * Takes the service's `now` from an answer: the middle of the call is when it was read.
 * @param {string} now
 * @param {number} sentAt
 * @param {number} receivedAt
 */
export function adoptServiceNow(now, sentAt, receivedAt) {
  const at = Date.parse(now);
  if (Number.isNaN(at)) return;
  offsetMs = at - (sentAt + receivedAt) / 2;
  known = true;
}

/** The service's time now, in epoch ms. */
export function serviceNow() {
  return Date.now() + offsetMs;
}

/** Whether an answer has told the service's time yet, and how far ahead of this browser it is. */
export function serviceClock() {
  return { known, offsetMs };
}
