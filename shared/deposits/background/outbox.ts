/**
 * The outbox relay: a version of a deposit written with an event (its outbox, see `advance`)
 * reaches the table's stream, and the relay sends that event on to the caller's webhook queue. The
 * stream brings every version at least once, so every event follows from its change, however the
 * step that wrote it ended; the event's id is stable per version, so receivers de-duplicate.
 *
 * The stream keeps a record 24 hours, so a record the relay cannot relay must not stay there: after a
 * few tries (with backoff, within the invocation's time) the relay sets it aside, whole, in a DLQ of
 * its own (`UnrelayedRecord`: the event, the deposit id, version and event id, where the stream had
 * it; nothing else of the image, so no sealed answers and no digests), and the record counts as
 * handled. Only a record it cannot set aside either fails: the stream brings it again, and after its
 * retries the event source mapping's own DLQ keeps its position, the last resort. An operator
 * redrives the relay's DLQ to the relay's queue, whose consumer relays each record again
 * (`relayAgain`; docs/operating.md).
 */
import * as z from 'zod';
import type { Clock } from '#shared/clock';
import type { Deposit } from '../model/deposit.ts';
import { DepositEvent } from '../model/events.ts';
import type { DepositEvents } from '../ports/messaging.ts';

/** Where the stream had a record: enough to find it there again while the stream keeps it. */
export const StreamPosition = z.object({
  eventId: z.string().optional(),
  sequenceNumber: z.string().optional(),
  streamArn: z.string().optional(),
  /** When the version was written (the stream's approximate time), ISO 8601. */
  writtenAt: z.string().optional(),
});
export type StreamPosition = z.infer<typeof StreamPosition>;

/** A version whose event the relay could not relay, as its DLQ holds it: all it takes to relay it again. */
export const UnrelayedRecord = z.object({
  depositId: z.string().min(1),
  version: z.number().int().nonnegative(),
  eventId: z.string().min(1),
  event: DepositEvent,
  stream: StreamPosition,
  /** The relay's tries, the last one's error, and when it gave up. */
  tries: z.number().int().positive(),
  error: z.string(),
  failedAt: z.string(),
});
export type UnrelayedRecord = z.infer<typeof UnrelayedRecord>;

/** What the relay's queue takes to relay an event again: a record of its DLQ, or one an operator wrote. */
export const RecordToRelay = UnrelayedRecord.pick({ depositId: true, version: true, event: true });
export type RecordToRelay = z.infer<typeof RecordToRelay>;

/** The relay's DLQ: where it sets aside, whole, a version whose event it could not relay. */
export interface UnrelayedEvents {
  setAside(record: UnrelayedRecord): Promise<void>;
}

export interface RelayContext {
  events: DepositEvents;
  unrelayed: UnrelayedEvents;
  clock: Clock;
}

/**
 * Tries of one event before it is set aside, the wait before the second (doubling after), and the
 * time kept back at the end of an invocation: no retry waits into it, so the records after a failing
 * one are still set aside before the function's timeout.
 */
export const relayTries = { tries: 3, firstDelayMs: 200, reserveMs: 10_000 };

/** The event this version of the deposit carries, if it carries one of its own. */
export function eventToRelay(image: Pick<Deposit, 'id' | 'version' | 'event'>): DepositEvent | undefined {
  const event = image.event;
  return event?.id === `${image.id}.v${image.version}` ? event : undefined;
}

/**
 * Relays the event of one version from the stream: the notify queue, tried again after a growing
 * wait while the invocation's time allows (`remainingMs`), else the relay's DLQ. Answers the record
 * it set aside, if it had to; throws only if setting it aside failed too.
 */
export async function relayOrSetAside(
  image: Pick<Deposit, 'id' | 'version' | 'event'>,
  position: StreamPosition,
  ctx: RelayContext,
  remainingMs: number,
): Promise<UnrelayedRecord | undefined> {
  const event = eventToRelay(image);
  if (!event) return undefined;
  const until = ctx.clock.now() + remainingMs - relayTries.reserveMs;
  let delay = relayTries.firstDelayMs;
  for (let tries = 1; ; tries += 1) {
    try {
      await ctx.events.publish(event);
      return undefined;
    } catch (error) {
      if (tries >= relayTries.tries || ctx.clock.now() + delay > until) {
        const record = unrelayed(image.id, image.version, event, position, tries, error, ctx.clock.now());
        await ctx.unrelayed.setAside(record);
        return record;
      }
    }
    await ctx.clock.sleep(delay);
    delay *= 2;
  }
}

/** Relays again a record redriven from the relay's DLQ: its event, which must be its version's own. */
export async function relayAgain(record: RecordToRelay, ctx: { events: DepositEvents }): Promise<void> {
  const event = eventToRelay({ id: record.depositId, version: record.version, event: record.event });
  if (!event)
    throw new Error(
      `the record of ${record.depositId} v${record.version} carries another version's event (${record.event.id})`,
    );
  await ctx.events.publish(event);
}

/** The record the DLQ gets: named fields only, whatever else the stream's image held. */
function unrelayed(
  depositId: string,
  version: number,
  event: DepositEvent,
  stream: StreamPosition,
  tries: number,
  error: unknown,
  at: number,
): UnrelayedRecord {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return UnrelayedRecord.parse({
    depositId,
    version,
    eventId: event.id,
    event,
    stream,
    tries,
    error: reason.slice(0, 1_000),
    failedAt: new Date(at).toISOString(),
  });
}
