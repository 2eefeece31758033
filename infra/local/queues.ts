/**
 * Local SQS: fauxqs with the topology's queues (each with its DLQ), and the pollers (`pollers.ts`)
 * that hand SQS events to the same consumer handlers Lambda runs, with partial-batch semantics.
 */
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { type QueueSpec, queues } from '#shared/topology';
import { localCredentials } from './credentials.ts';
import { type PollerGeneration, startPollers } from './pollers.ts';

export interface LocalQueue {
  name: string;
  url: string;
  arn: string;
  dlqUrl: string;
  dlqArn: string;
}

export interface LocalQueues {
  endpoint: string;
  client: SQSClient;
  byKey: Record<keyof typeof queues, LocalQueue>;
  /** The scheduler's own DLQ. */
  schedulerDlq: { url: string; arn: string };
  /**
   * Starts the pollers of every queue but `except` (polled elsewhere: the step workers' child
   * process), `concurrency` per queue at first and while it is empty, growing with its messages up to
   * its `maxConcurrency` (`pollers.ts`); call after the handlers' environment is set. Again after
   * `stopPollers`.
   */
  startPollers(options: { concurrency: number; except?: readonly (keyof typeof queues)[] }): Promise<void>;
  /**
   * Stops the pollers, as if every worker went away: each finishes the batch in its hands, but
   * deletes none of it (those messages come back after the visibility timeout, to the next workers).
   */
  stopPollers(): Promise<void>;
  stop(): Promise<void>;
}

export async function startLocalQueues(visibilityTimeoutSeconds: number): Promise<LocalQueues> {
  const server = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
  const client = new SQSClient({
    endpoint: server.address,
    region: 'us-east-1',
    credentials: localCredentials,
  });

  async function create(name: string, attributes: Record<string, string> = {}) {
    const { QueueUrl } = await client.send(
      new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
    );
    if (!QueueUrl) throw new Error(`queue ${name} not created`);
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }),
    );
    return { url: QueueUrl, arn: Attributes?.QueueArn ?? '' };
  }

  const byKey = {} as Record<keyof typeof queues, LocalQueue>;
  for (const [key, spec] of Object.entries(queues) as [keyof typeof queues, QueueSpec][]) {
    const dlq = await create(`${spec.localName}-dlq`);
    const queue = await create(spec.localName, {
      VisibilityTimeout: String(visibilityTimeoutSeconds),
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: spec.maxReceiveCount }),
    });
    byKey[key] = { name: spec.localName, ...queue, dlqUrl: dlq.url, dlqArn: dlq.arn };
  }
  const schedulerDlq = await create('scheduler-dlq');

  let current: PollerGeneration | undefined;
  let generations = 0;

  async function stopPollers() {
    const generation = current;
    current = undefined;
    await generation?.stop();
  }

  return {
    endpoint: server.address,
    client,
    byKey,
    schedulerDlq,
    async startPollers(options) {
      if (current) throw new Error('the local pollers are running already');
      generations += 1;
      const keys = (Object.keys(queues) as (keyof typeof queues)[]).filter(
        (key) => !options.except?.includes(key),
      );
      // A restart brings new environments: the generation names them.
      current = await startPollers(
        client,
        keys.map((key) => ({ spec: queues[key], ...byKey[key] })),
        { concurrency: options.concurrency, environment: String(generations) },
      );
    },
    stopPollers,
    async stop() {
      await stopPollers();
      client.destroy();
      await server.stop();
    },
  };
}
