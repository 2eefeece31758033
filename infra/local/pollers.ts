/**
 * Queue pollers: each one an execution environment, as Lambda's event source mapping runs them. It
 * receives a batch, hands it to its own instance of the queue's consumer handler as an SQS event, and
 * deletes what the handler did not report failed (partial-batch semantics); the failed records come
 * back after the visibility timeout, and after `maxReceiveCount` receives move to the DLQ. The local
 * stack runs them in its own process (`queues.ts`), or the step workers' in a child process
 * (`step-workers.ts`), where a test can kill them.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { QueueSpec } from '#infra/topology';
import { withOwnLogger } from '#shared/logger';
import { lambdaContext } from './lambda-context.ts';

type Consumer = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

/** A queue as the pollers need it: its spec (consumer, batch size, concurrency), URL and ARN. */
export interface PolledQueue {
  spec: QueueSpec;
  name: string;
  url: string;
  arn: string;
}

/** One generation of pollers: `stop` ends it (each finishes the batch in hand, deleting none of it). */
export interface PollerGeneration {
  stop(): Promise<void>;
}

const projectRoot = resolve(import.meta.dirname, '../..');

/**
 * Starts `concurrency` pollers per queue (at most the queue's own), each with a fresh instance of its
 * consumer's module, named by `environment` (a new generation is a new, cold, environment).
 */
export async function startPollers(
  client: SQSClient,
  polled: PolledQueue[],
  options: { concurrency: number; environment: string },
): Promise<PollerGeneration> {
  const state = { running: true };
  const loops: Promise<void>[] = [];
  for (const queue of polled) {
    const href = pathToFileURL(resolve(projectRoot, queue.spec.consumer)).href;
    const workers = Math.min(options.concurrency, queue.spec.maxConcurrency);
    for (let worker = 0; worker < workers; worker += 1) {
      // Each poller is one execution environment, with its own instance of the handler's module
      // (its imports are shared): a handler keeps the batch in hand in module state (Powertools'
      // batch processor does), which two batches at once would overwrite, failed records then
      // being reported done and deleted.
      const module = (await import(`${href}?environment=${options.environment}-${worker}`)) as {
        handler: Consumer;
      };
      loops.push(poll(client, queue, module.handler, state));
    }
  }
  return {
    async stop() {
      state.running = false;
      await Promise.allSettled(loops);
    },
  };
}

async function poll(client: SQSClient, queue: PolledQueue, consumer: Consumer, state: { running: boolean }) {
  while (state.running) {
    let messages: Message[] = [];
    try {
      const received = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.url,
          MaxNumberOfMessages: queue.spec.batchSize,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      messages = received.Messages ?? [];
    } catch (error) {
      if (!state.running) return;
      process.stderr.write(`local poller ${queue.name}: ${String(error)}\n`);
      await new Promise((done) => setTimeout(done, 500));
      continue;
    }
    if (messages.length === 0) continue;
    const event = toSqsEvent(messages, queue);
    let failed = new Set<string>();
    try {
      const response = await withOwnLogger('deposits', () => consumer(event, lambdaContext(queue.name)));
      failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch {
      // A handler that throws fails the whole batch, as in Lambda.
      failed = new Set(messages.map((message) => message.MessageId ?? ''));
    }
    const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
    if (done.length > 0 && state.running) {
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

function toSqsEvent(messages: Message[], queue: PolledQueue): SQSEvent {
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
