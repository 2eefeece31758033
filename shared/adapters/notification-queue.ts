/** The notify queue: deposit events on their way to the caller's webhook, and their retry backoff. */
import { ChangeMessageVisibilityCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DepositEvent } from '#shared/deposits/model/events';
import type { DepositEvents } from '#shared/deposits/ports/messaging';
import { currentTrace } from '#shared/tracing';
import { traceAttribute } from './step-queues.ts';

export class NotificationQueue implements DepositEvents {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string | undefined,
  ) {}

  /**
   * Queues an event, in the current trace (the relay works each in its deposit's); without a webhook
   * configured there is no queue and nothing to send.
   */
  async publish(event: DepositEvent): Promise<void> {
    if (!this.queueUrl) return;
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(event),
        ...traceAttribute(currentTrace()),
      }),
    );
  }

  /** Hides a message whose delivery failed until its next try is due. */
  async retryIn(receiptHandle: string, seconds: number): Promise<void> {
    if (!this.queueUrl) return;
    await this.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: this.queueUrl,
        ReceiptHandle: receiptHandle,
        VisibilityTimeout: Math.max(0, Math.min(43_200, Math.round(seconds))),
      }),
    );
  }
}
