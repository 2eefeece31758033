/**
 * When a webhook delivery is tried again: the notifier's backoff (the sender, which speaks HTTP, is
 * an adapter: `shared/adapters/webhook-sender.ts`).
 */

/** Seconds before try `attempt + 1`: base, 2 x base, 4 x base ... capped at an hour. */
export function backoffSeconds(attempt: number, baseSeconds: number): number {
  return Math.min(3_600, baseSeconds * 2 ** Math.max(0, attempt - 1));
}
