import { webhookConfig } from '#shared/config';
import { DepositEvent } from '#shared/deposits/model';
import { notificationQueue } from '#shared/deposits/runtime';
import { backoffSeconds, WebhookSender } from '#shared/deposits/webhooks';
import { sqsConsumer } from '#shared/middleware/sqs';

const { WEBHOOK_URL, WEBHOOK_SECRET, WEBHOOK_TIMEOUT_MS, WEBHOOK_RETRY_BASE_SECONDS } = webhookConfig();
const sender =
  WEBHOOK_URL && WEBHOOK_SECRET
    ? new WebhookSender(WEBHOOK_URL, WEBHOOK_SECRET, WEBHOOK_TIMEOUT_MS)
    : undefined;

/** Delivers deposit events to the webhook; a failed delivery comes back after a growing delay. */
export const handler = sqsConsumer(DepositEvent, async (event, record) => {
  if (!sender) return;
  try {
    await sender.deliver(event);
  } catch (error) {
    const attempt = Number(record.attributes.ApproximateReceiveCount ?? '1');
    await notificationQueue.retryIn(
      record.receiptHandle,
      backoffSeconds(attempt, WEBHOOK_RETRY_BASE_SECONDS),
    );
    throw error;
  }
});
