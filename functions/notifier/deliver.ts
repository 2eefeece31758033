import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { WebhookSender } from '#shared/adapters/webhook-sender';
import { webhookConfig } from '#shared/config';
import { DepositEvent } from '#shared/deposits/model';
import { backoffSeconds } from '#shared/deposits/webhooks';
import { sqsConsumer } from '#shared/middleware/sqs';
import { depositEvents } from '#shared/wiring/messaging';

const { WEBHOOK_URL, WEBHOOK_SECRET, WEBHOOK_SECRET_ARN, WEBHOOK_TIMEOUT_MS, WEBHOOK_RETRY_BASE_SECONDS } =
  webhookConfig();
/** Locally WEBHOOK_SECRET; in AWS the Secrets Manager secret, read once at cold start. */
async function signingSecret(): Promise<string | undefined> {
  if (!WEBHOOK_URL || WEBHOOK_SECRET || !WEBHOOK_SECRET_ARN) return WEBHOOK_SECRET;
  const value = await getSecret(WEBHOOK_SECRET_ARN);
  if (typeof value !== 'string' || value === '')
    throw new Error('WEBHOOK_SECRET_ARN: the secret has no value');
  return value;
}
const secret = await signingSecret();
const notifyQueue = depositEvents();
const sender = WEBHOOK_URL && secret ? new WebhookSender(WEBHOOK_URL, secret, WEBHOOK_TIMEOUT_MS) : undefined;

/** Delivers deposit events to the webhook; a failed delivery comes back after a growing delay. */
export const handler = sqsConsumer(DepositEvent, async (event, record) => {
  if (!sender) return;
  try {
    await sender.deliver(event);
  } catch (error) {
    const attempt = Number(record.attributes.ApproximateReceiveCount ?? '1');
    await notifyQueue.retryIn(record.receiptHandle, backoffSeconds(attempt, WEBHOOK_RETRY_BASE_SECONDS));
    throw error;
  }
});
