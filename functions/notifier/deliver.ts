import { WebhookSender } from '#shared/adapters/webhook-sender';
import { webhookSigningSecrets } from '#shared/adapters/webhook-signing-secrets';
import { systemClock } from '#shared/clock';
import { webhookConfig } from '#shared/config';
import { deliverEvent } from '#shared/deposits/background/deliveries';
import { DepositEvent } from '#shared/deposits/model/events';
import { logger } from '#shared/logger';
import { sqsConsumer } from '#shared/middleware/sqs';
import { queues } from '#shared/topology';
import { depositEvents } from '#shared/wiring/messaging';
import { tableEntities } from '#shared/wiring/table';

const config = webhookConfig();
/** Locally WEBHOOK_SECRET (and WEBHOOK_PREVIOUS_SECRET); in AWS the secret's versions, read once at cold start. */
const secrets = await webhookSigningSecrets(config);
const notifyQueue = depositEvents();
const sender =
  config.WEBHOOK_URL && secrets.length > 0
    ? new WebhookSender(config.WEBHOOK_URL, secrets, config.WEBHOOK_TIMEOUT_MS)
    : undefined;
const records = sender ? tableEntities.deliveries() : undefined;

/**
 * Delivers deposit events to the webhook and records each try (the operators' view of a deposit's
 * deliveries); a failed delivery comes back after a growing delay. Each in its deposit's trace,
 * which the relay put on the message (`AWSTraceHeader`).
 */
export const handler = sqsConsumer(
  DepositEvent,
  async (event, record) => {
    if (!sender || !records) return;
    const { recordError } = await deliverEvent(
      event,
      Number(record.attributes.ApproximateReceiveCount ?? '1'),
      {
        webhook: sender,
        records,
        clock: systemClock,
        retryBaseSeconds: config.WEBHOOK_RETRY_BASE_SECONDS,
        maxTries: queues.notify.maxReceiveCount,
        retryIn: (seconds) => notifyQueue.retryIn(record.receiptHandle, seconds),
      },
    );
    if (recordError)
      logger.warn('webhook delivered, its record not written', { eventId: event.id, error: recordError });
  },
  { depositOf: (event) => event.depositId },
);
