/**
 * A deposit's webhook deliveries, as an operator reads them, and an operator's resend of one event.
 * A resend queues the event again, whole, as the outbox relay first sent it: the same id, so the
 * `webhook-id` a receiver de-duplicates on is the same, and a receiver that took it already drops it.
 *
 * Resend: 1. read the event's delivery record (none: 404); 2. queue its event to the notify queue;
 * 3. count the resend on the record, with who and when (its audit line is the operator route's).
 */
import type { Clock } from '#shared/clock';
import type { Delivery, DeliveryRecords } from '#shared/deposits/background/deliveries';
import { DepositError } from '#shared/deposits/model/errors';
import type { DepositEvents } from '#shared/deposits/ports/messaging';
import type { DepositRecords } from '#shared/deposits/ports/records';
import { OperatorError } from './errors.ts';

/** The most recent tries a delivery's view shows (a record keeps them all). */
export const TRIES_SHOWN = 20;

const iso = (at: number) => new Date(at).toISOString();

/** One delivery as the operator API answers it. */
export function deliveryView(delivery: Delivery) {
  return {
    eventId: delivery.eventId,
    type: delivery.event.type,
    occurredAt: delivery.event.occurredAt,
    state: delivery.state,
    attempts: delivery.attempts,
    firstTriedAt: iso(delivery.firstTriedAt),
    lastTriedAt: iso(delivery.lastTriedAt),
    ...(delivery.deliveredAt === undefined ? {} : { deliveredAt: iso(delivery.deliveredAt) }),
    ...(delivery.state === 'retrying' && delivery.nextTryAt !== undefined
      ? { nextTryAt: iso(delivery.nextTryAt) }
      : {}),
    tries: delivery.tries.slice(-TRIES_SHOWN).map((attempt) => ({ ...attempt, at: iso(attempt.at) })),
    resends: delivery.resends,
    ...(delivery.lastResend
      ? { lastResend: { by: delivery.lastResend.by, at: iso(delivery.lastResend.at) } }
      : {}),
  };
}

/** The version an event id names (`<deposit>.v<version>`), to order a deposit's events. */
function versionOf(eventId: string): number {
  const version = Number(/\.v(\d+)$/.exec(eventId)?.[1]);
  return Number.isFinite(version) ? version : 0;
}

export interface DeliveriesContext {
  deposits: Pick<DepositRecords, 'get'>;
  deliveries: Pick<DeliveryRecords, 'of'>;
  clock: Pick<Clock, 'now'>;
}

/** The deposit's deliveries, its events in order; the service's time, for the countdowns to a next try. */
export async function deliveriesOf(request: { depositId: string }, ctx: DeliveriesContext) {
  const [deposit, deliveries] = await Promise.all([
    ctx.deposits.get(request.depositId),
    ctx.deliveries.of(request.depositId),
  ]);
  if (!deposit) throw new DepositError('DEPOSIT_NOT_FOUND', `No deposit ${request.depositId}`);
  return {
    operationID: request.depositId,
    now: iso(ctx.clock.now()),
    deliveries: deliveries.sort((a, b) => versionOf(a.eventId) - versionOf(b.eventId)).map(deliveryView),
  };
}

export interface ResendContext {
  deliveries: Pick<DeliveryRecords, 'get' | 'resent'>;
  events: DepositEvents;
  clock: Pick<Clock, 'now'>;
}

/** Queues one event of the deposit again for its webhook. */
export async function resendEvent(
  request: { depositId: string; eventId: string; who: string },
  ctx: ResendContext,
) {
  const delivery = await ctx.deliveries.get(request.depositId, request.eventId);
  if (!delivery)
    throw new OperatorError(
      'DELIVERY_NOT_FOUND',
      `No delivery of event ${request.eventId} of deposit ${request.depositId} was tried`,
    );
  await ctx.events.publish(delivery.event);
  const resends = await ctx.deliveries.resent(request.depositId, request.eventId, {
    by: request.who,
    at: ctx.clock.now(),
  });
  return { operationID: request.depositId, eventId: request.eventId, resent: true as const, resends };
}
