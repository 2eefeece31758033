/**
 * The depths of the service's queues and their DLQs, as SQS counts them (approximate, as SQS says):
 * one GetQueueAttributes per queue, all at once.
 */
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { QueueDepth, QueueDepths } from '#shared/operator/ports';

/** A queue the operator watches: its name and URL, and its DLQ's. */
export interface WatchedQueue {
  name: string;
  url: string;
  dlqName: string;
  dlqUrl: string;
}

const counted = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
] as const;

export class SqsQueueDepths implements QueueDepths {
  constructor(
    private readonly client: SQSClient,
    private readonly queues: readonly WatchedQueue[],
  ) {}

  read(): Promise<QueueDepth[]> {
    return Promise.all(
      this.queues.map(async (queue) => {
        const [main, dlq] = await Promise.all([this.counts(queue.url), this.counts(queue.dlqUrl)]);
        return {
          name: queue.name,
          visible: main.ApproximateNumberOfMessages,
          inFlight: main.ApproximateNumberOfMessagesNotVisible,
          delayed: main.ApproximateNumberOfMessagesDelayed,
          dlq: { name: queue.dlqName, visible: dlq.ApproximateNumberOfMessages },
        };
      }),
    );
  }

  private async counts(url: string): Promise<Record<(typeof counted)[number], number>> {
    const { Attributes = {} } = await this.client.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [...counted] }),
    );
    return Object.fromEntries(counted.map((name) => [name, Number(Attributes[name] ?? 0) || 0])) as Record<
      (typeof counted)[number],
      number
    >;
  }
}
