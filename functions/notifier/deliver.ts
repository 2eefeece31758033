import { WebhookSender } from '#shared/adapters/webhook-sender';
import { webhookSigningSecrets } from '#shared/adapters/webhook-signing-secrets';
import { webhookConfig } from '#shared/config';
import { DepositEvent } from '#shared/deposits/model';
import { backoffSeconds } from '#shared/deposits/webhooks';
import { sqsConsumer } from '#shared/middleware/sqs';
import { depositEvents } from '#shared/wiring/messaging';

const config = webhookConfig();
/** Locally WEBHOOK_SECRET (and WEBHOOK_PREVIOUS_SECRET); in AWS the secret's versions, read once at cold start. */
const secrets = await webhookSigningSecrets(config);
const notifyQueue = depositEvents();
const sender =
  config.WEBHOOK_URL && secrets.length > 0
    ? new WebhookSender(config.WEBHOOK_URL, secrets, config.WEBHOOK_TIMEOUT_MS)
    : undefined;

/** Delivers deposit events to the webhook; a failed delivery comes back after a growing delay. */
export const handler = sqsConsumer(DepositEvent, async (event, record) => {
  if (!sender) return;
  try {
    await sender.deliver(event);
  } catch (error) {
    const attempt = Number(record.attributes.ApproximateReceiveCount ?? '1');
    await notifyQueue.retryIn(
      record.receiptHandle,
      backoffSeconds(attempt, config.WEBHOOK_RETRY_BASE_SECONDS),
    );
    throw error;
  }
});
