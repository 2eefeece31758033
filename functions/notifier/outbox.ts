import { depositOf, streamPositionOf } from '#shared/adapters/deposit-stream';
import { relayOrSetAside } from '#shared/deposits/background/outbox';
import { logger } from '#shared/logger';
import { streamConsumer } from '#shared/middleware/sqs';
import { traceHeaderOf, withDepositTrace } from '#shared/tracing';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('notifier-outbox');

/**
 * Relays each deposit event from the table's stream to the webhook queue (the outbox relay). One it
 * cannot relay goes whole to the relay's DLQ; only a record it cannot set aside either fails.
 */
export const handler = streamConsumer(async (record, lambda) => {
  const deposit = depositOf(record);
  if (!deposit) return;
  const position = streamPositionOf(record);
  // In the deposit's trace: the event's message carries it on to the webhook's deliverer.
  const setAside = await withDepositTrace(deposit.id, traceHeaderOf(deposit.trace), () =>
    relayOrSetAside(deposit, position, context, lambda.getRemainingTimeInMillis()),
  );
  if (setAside) {
    const { depositId, version, eventId, tries, error } = setAside;
    logger.error('event set aside in the outbox relay DLQ', { depositId, version, eventId, tries, error });
  }
});
