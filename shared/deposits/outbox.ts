/**
 * The outbox relay: a version of a deposit written with an event (its outbox, see `advance`)
 * reaches the table's stream, and the relay sends that event on to the caller's webhook queue. The
 * stream brings every version at least once, so every event follows from its change, however the
 * step that wrote it ended; the event's id is stable per version, so receivers de-duplicate.
 */
import type { Deposit, DepositEvent } from './model.ts';
import type { DepositEvents } from './ports.ts';

/** The event this version of the deposit carries, if it carries one of its own. */
export function eventToRelay(image: Pick<Deposit, 'id' | 'version' | 'event'>): DepositEvent | undefined {
  const event = image.event;
  return event?.id === `${image.id}.v${image.version}` ? event : undefined;
}

/** Relays the events of these versions, in order. */
export async function relayEvents(
  images: readonly Pick<Deposit, 'id' | 'version' | 'event'>[],
  ctx: { events: DepositEvents },
): Promise<number> {
  let relayed = 0;
  for (const image of images) {
    const event = eventToRelay(image);
    if (!event) continue;
    await ctx.events.publish(event);
    relayed += 1;
  }
  return relayed;
}
