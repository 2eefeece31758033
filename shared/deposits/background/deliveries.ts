/**
 * Webhook deliveries as the notifier records them: one record per event (its id, `<deposit>.v<version>`,
 * is the `webhook-id` a receiver de-duplicates on), updated on each try with what came of it, so
 * that an operator sees a deposit's deliveries and resends one (`shared/operator/deliveries.ts`). A
 * record holds the event itself, so that any of a deposit's events can be sent again, not only its
 * latest. No AWS here: `shared/adapters/delivery-items.ts` keeps the records.
 *
 * The use case, per message of the notify queue:
 * 1. send the event to the webhook (`WebhookDelivery`);
 * 2. record the try (when, the answer's status or the error, how long it took, when the next is due);
 * 3. after a failed try, hide the message until its next try (`backoffSeconds`) and fail it, so that
 *    the queue brings it again (and after its last try, leaves it in the DLQ).
 * A record that cannot be written never costs a delivery: the try counts, the error is answered.
 */
import type { Clock } from '#shared/clock';
import type { DepositEvent } from '../model/events.ts';
import { backoffSeconds } from './webhooks.ts';

/** One try of a delivery. */
export interface DeliveryTry {
  at: number;
  outcome: 'delivered' | 'failed';
  /** The webhook's HTTP status, when it answered. */
  status?: number;
  /** Why it failed (a status that is not 2xx, a timeout, a refused connection), cut to `errorChars`. */
  error?: string;
  tookMs: number;
}

/** Where a delivery stands after its last try. */
export type DeliveryState = 'delivered' | 'retrying' | 'dead_lettered';

/** The record of one event's delivery. */
export interface Delivery {
  depositId: string;
  eventId: string;
  event: DepositEvent;
  state: DeliveryState;
  attempts: number;
  firstTriedAt: number;
  lastTriedAt: number;
  /** The first try the webhook took (2xx). */
  deliveredAt?: number;
  /** When the queue brings a failed delivery again. */
  nextTryAt?: number;
  /** The tries, oldest first. */
  tries: DeliveryTry[];
  /** Operators' resends: how many, and the last one's who and when. */
  resends: number;
  lastResend?: { by: string; at: number };
}

/** What the notifier tells the records of a try. */
export interface TryRecord {
  event: DepositEvent;
  attempt: DeliveryTry;
  state: DeliveryState;
  nextTryAt?: number;
}

/** The delivery records (the deposits table's `DELIVERY#<deposit>` partition). */
export interface DeliveryRecords {
  /** Adds a try to the event's record, making it on the first. */
  tried(record: TryRecord): Promise<void>;
  /** A deposit's records, in no particular order. */
  of(depositId: string): Promise<Delivery[]>;
  get(depositId: string, eventId: string): Promise<Delivery | undefined>;
  /** Counts an operator's resend on the record; its count after. */
  resent(depositId: string, eventId: string, by: { by: string; at: number }): Promise<number>;
}

/** Sends one event to the webhook: its status once it answered 2xx; else throws (with `status` when it answered). */
export interface WebhookDelivery {
  deliver(event: DepositEvent): Promise<{ status: number }>;
}

export interface DeliverContext {
  webhook: WebhookDelivery;
  records: Pick<DeliveryRecords, 'tried'>;
  clock: Pick<Clock, 'now'>;
  /** First retry's delay; each further one doubles (`backoffSeconds`). */
  retryBaseSeconds: number;
  /** The notify queue's tries before its DLQ (`maxReceiveCount`). */
  maxTries: number;
  /** Hides the message being delivered for `seconds`, until its next try. */
  retryIn(seconds: number): Promise<void>;
}

/** A try's error is kept this long at most. */
export const errorChars = 300;

/**
 * Delivers one event (try `attempt` of it, from 1) and records the try. Throws the delivery's error,
 * so that the queue brings the message again; answers the recording's error, if any, for the log.
 */
export async function deliverEvent(
  event: DepositEvent,
  attempt: number,
  ctx: DeliverContext,
): Promise<{ recordError?: unknown }> {
  const at = ctx.clock.now();
  try {
    const { status } = await ctx.webhook.deliver(event);
    const tookMs = Math.max(0, ctx.clock.now() - at);
    return await record(ctx, {
      event,
      state: 'delivered',
      attempt: { at, outcome: 'delivered', status, tookMs },
    });
  } catch (error) {
    const tookMs = Math.max(0, ctx.clock.now() - at);
    const last = attempt >= ctx.maxTries;
    const delay = backoffSeconds(attempt, ctx.retryBaseSeconds);
    const status = statusOf(error);
    await record(ctx, {
      event,
      state: last ? 'dead_lettered' : 'retrying',
      attempt: { at, outcome: 'failed', ...(status ? { status } : {}), error: textOf(error), tookMs },
      ...(last ? {} : { nextTryAt: at + tookMs + delay * 1000 }),
    });
    if (!last) await ctx.retryIn(delay);
    throw error;
  }
}

async function record(ctx: DeliverContext, tried: TryRecord): Promise<{ recordError?: unknown }> {
  try {
    await ctx.records.tried(tried);
    return {};
  } catch (recordError) {
    return { recordError };
  }
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
}

function textOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.slice(0, errorChars);
}
