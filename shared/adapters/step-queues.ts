/**
 * The step queues a handler may send to: a step message goes to the queue of the step it names, with
 * its deposit's trace as the message's `AWSTraceHeader` (X-Ray links the consumer's trace to it).
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { WorkStep } from '#shared/deposits/model/deposit';
import type { StepMessageTo } from '#shared/deposits/model/messages';
import type { StepQueues } from '#shared/deposits/ports/messaging';
import { currentTrace, traceHeaderOf } from '#shared/tracing';

/** The message system attribute that carries a trace header from a sender to its consumer. */
export function traceAttribute(header: string | undefined) {
  return header
    ? { MessageSystemAttributes: { AWSTraceHeader: { DataType: 'String', StringValue: header } } }
    : {};
}

export class SqsStepQueues<S extends WorkStep> implements StepQueues<S> {
  constructor(
    private readonly client: SQSClient,
    /** Only the queues this handler sends to: it has no URL, and no grant, for the others. */
    private readonly urls: Record<S, string>,
  ) {}

  async send(message: StepMessageTo<S>, delaySeconds = 0): Promise<void> {
    const url = this.urls[message.step];
    if (!url) throw new Error(`this handler does not send to the ${message.step} queue`);
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: JSON.stringify(message),
        DelaySeconds: Math.max(0, Math.min(900, Math.round(delaySeconds))),
        ...traceAttribute(traceHeaderOf(message.trace) ?? currentTrace()),
      }),
    );
  }
}
