import { RecordToRelay, relayAgain } from '#shared/deposits/background/outbox';
import { sqsConsumer } from '#shared/middleware/sqs';
import { handlerContext } from '#shared/wiring/handler-context';

const context = await handlerContext('notifier-relay-again');

/** Relays again each record an operator redrove from the outbox relay's DLQ to its queue. */
export const handler = sqsConsumer(RecordToRelay, (record) => relayAgain(record, context), {
  depositOf: (record) => record.depositId,
});
