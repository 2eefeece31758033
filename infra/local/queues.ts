/**
 * Local SQS: fauxqs with the topology's queues (each with its DLQ), and pollers that hand SQS events
 * to the same consumer handlers Lambda runs, with partial-batch semantics: the records a handler
 * reports as failed stay on the queue, come back after the visibility timeout, and after
 * `maxReceiveCount` receives move to the DLQ. Each poller is one execution environment: its own
 * instance of the handler's module, working one batch at a time, as a Lambda environment does.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { startFauxqs } from 'fauxqs';
import { type QueueSpec, queues } from '#infra/topology';
import { localCredentials } from './dynamodb-local.ts';
import { lambdaContext } from './lambda-context.ts';

type Consumer = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

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
  /** Starts the pollers; call after the handlers' environment is set. Again after `stopPollers`. */
  startPollers(options: { visibilityTimeoutSeconds: number; concurrency: number }): Promise<void>;
  /**
   * Stops the pollers, as if every worker went away: each finishes the batch in its hands, but
   * deletes none of it (those messages come back after the visibility timeout, to the next workers).
   */
  stopPollers(): Promise<void>;
  stop(): Promise<void>;
}

const projectRoot = resolve(import.meta.dirname, '../..');

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

  /** One generation of pollers: `stopPollers` ends it, `startPollers` begins the next. */
  interface Generation {
    running: boolean;
    loops: Promise<void>[];
  }
  let current: Generation | undefined;
  let generations = 0;

  async function poll(spec: QueueSpec, queue: LocalQueue, consumer: Consumer, generation: Generation) {
    while (generation.running) {
      let messages: Message[] = [];
      try {
        const received = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: queue.url,
            MaxNumberOfMessages: spec.batchSize,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        );
        messages = received.Messages ?? [];
      } catch (error) {
        if (!generation.running) return;
        process.stderr.write(`local poller ${queue.name}: ${String(error)}\n`);
        await new Promise((done) => setTimeout(done, 500));
        continue;
      }
      if (messages.length === 0) continue;
      const event = toSqsEvent(messages, queue);
      let failed = new Set<string>();
      try {
        const response = await consumer(event, lambdaContext(queue.name));
        failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
      } catch {
        // A handler that throws fails the whole batch, as in Lambda.
        failed = new Set(messages.map((message) => message.MessageId ?? ''));
      }
      const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
      if (done.length > 0 && generation.running) {
        await client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queue.url,
            Entries: done.map((message, index) => ({
              Id: String(index),
              ReceiptHandle: message.ReceiptHandle,
            })),
          }),
        );
      }
    }
  }

  async function stopPollers() {
    const generation = current;
    if (!generation) return;
    generation.running = false;
    await Promise.allSettled(generation.loops);
  }

  return {
    endpoint: server.address,
    client,
    byKey,
    schedulerDlq,
    async startPollers(options) {
      if (current?.running) throw new Error('the local pollers are running already');
      const generation: Generation = { running: true, loops: [] };
      current = generation;
      generations += 1;
      for (const [key, spec] of Object.entries(queues) as [keyof typeof queues, QueueSpec][]) {
        const href = pathToFileURL(resolve(projectRoot, spec.consumer)).href;
        const workers = Math.min(options.concurrency, spec.maxConcurrency);
        for (let worker = 0; worker < workers; worker += 1) {
          // Each poller is one execution environment, with its own instance of the handler's module
          // (its imports are shared): a handler keeps the batch in hand in module state (Powertools'
          // batch processor does), which two batches at once would overwrite, failed records then
          // being reported done and deleted. A restart brings new environments.
          const module = (await import(`${href}?environment=${generations}-${worker}`)) as {
            handler: Consumer;
          };
          generation.loops.push(poll(spec, byKey[key], module.handler, generation));
        }
      }
    },
    stopPollers,
    async stop() {
      await stopPollers();
      client.destroy();
      await server.stop();
    },
  };
}

function toSqsEvent(messages: Message[], queue: LocalQueue): SQSEvent {
  return {
    Records: messages.map((message) => ({
      messageId: message.MessageId ?? randomUUID(),
      receiptHandle: message.ReceiptHandle ?? '',
      body: message.Body ?? '',
      attributes: {
        ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? '1',
        SentTimestamp: message.Attributes?.SentTimestamp ?? String(Date.now()),
        SenderId: message.Attributes?.SenderId ?? 'local',
        ApproximateFirstReceiveTimestamp:
          message.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: message.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: queue.arn,
      awsRegion: 'us-east-1',
    })),
  };
}
