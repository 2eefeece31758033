import { RecordToRelay, relayAgain } from '#shared/deposits/background/outbox';
import { sqsConsumer } from '#shared/middleware/sqs';
import { depositEvents } from '#shared/wiring/messaging';

const context = { events: depositEvents() };

/** Relays again each record an operator redrove from the outbox relay's DLQ to its queue. */
export const handler = sqsConsumer(RecordToRelay, (record) => relayAgain(record, context), {
  depositOf: (record) => record.depositId,
});
