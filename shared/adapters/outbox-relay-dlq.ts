/**
 * The outbox relay's DLQ: each version whose event the relay could not send to the notify queue,
 * whole, as a message of its own (the JSON of an `UnrelayedRecord`). An operator redrives it to the
 * relay's queue once the cause is fixed (docs/operating.md, "Redrive a DLQ").
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { UnrelayedEvents, UnrelayedRecord } from '#shared/deposits/background/outbox';

export class OutboxRelayDlq implements UnrelayedEvents {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async setAside(record: UnrelayedRecord): Promise<void> {
    await this.client.send(
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(record) }),
    );
  }
}
