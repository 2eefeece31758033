/** The four step queues: a step message goes to the queue of the step it asks for. */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { StepMessage, StepQueues, WorkStep } from '#shared/deposits/model';

export class SqsStepQueues implements StepQueues {
  constructor(
    private readonly client: SQSClient,
    private readonly urls: Record<WorkStep, string>,
  ) {}

  async send(message: StepMessage, delaySeconds = 0): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.urls[message.step],
        MessageBody: JSON.stringify(message),
        DelaySeconds: Math.max(0, Math.min(900, Math.round(delaySeconds))),
      }),
    );
  }
}
