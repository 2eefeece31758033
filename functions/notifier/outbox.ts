import { depositOf } from '#shared/adapters/deposit-stream';
import { relayEvents } from '#shared/deposits/outbox';
import { streamConsumer } from '#shared/middleware/sqs';
import { depositEvents } from '#shared/wiring/messaging';

const context = { events: depositEvents() };

/** Relays each deposit event from the table's stream to the webhook queue (the outbox relay). */
export const handler = streamConsumer(async (record) => {
  const deposit = depositOf(record);
  if (deposit) await relayEvents([deposit], context);
});
