/**
 * Queue pollers: each one an execution environment, as Lambda's event source mapping runs them. It
 * receives a batch, hands it to its own instance of the queue's consumer handler as an SQS event, and
 * deletes what the handler did not report failed (partial-batch semantics); the failed records come
 * back after the visibility timeout, and after `maxReceiveCount` receives move to the DLQ. The local
 * stack runs them in its own process (`queues.ts`), or the step workers' in child processes
 * (`step-workers.ts`), where a test can kill them.
 *
 * How many, per queue, scale as the event source mapping's concurrency does:
 *   - the maximum is the queue's `maxConcurrency` (`shared/topology.ts`: 5 per step queue, the
 *     mapping's `maximumConcurrency` in AWS), shared out when several processes poll one queue (the
 *     step workers' two: 3 and 2); never more batches of a queue in hand at once than that;
 *   - it starts with `concurrency` pollers (the floor: 2 in the local stack, 1 per step workers'
 *     process), which keep polling while the queue is empty, each receive a 20 s long poll, as the
 *     mapping's (a message wakes it at once; an idle stack makes a receive a queue every 10 s, not 2
 *     a second);
 *   - it adds one poller (one more concurrent batch) each time a receive brings a full batch, or
 *     brings messages while none of the queue's other pollers is waiting on a receive (the messages
 *     outrun the pollers), up to the maximum: Lambda adds pollers and invocations while the queue
 *     has messages;
 *   - a poller above the floor whose receive comes back empty (a 1 s long poll) stops: back to the
 *     floor within about a second once the queue is empty.
 * Stopping a generation ends its receives waiting at once (aborted).
 * A new poller takes an idle module instance of the queue's consumer, or imports a new one (a cold
 * start) when none is idle: never more instances than the maximum, never one in two pollers at once.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { withOwnLogger } from '#shared/logger';
import type { QueueSpec } from '#shared/topology';
import { loadHandler } from './handlers.ts';
import { lambdaContext } from './lambda-context.ts';
import { inInvocation, traceHeaderOfMessage } from './traces.ts';

type Consumer = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

/** A queue as the pollers need it: its spec (consumer, batch size, concurrency), URL and ARN. */
export interface PolledQueue {
  spec: QueueSpec;
  name: string;
  url: string;
  arn: string;
}

export interface PollerOptions {
  /** Pollers per queue at the start and while it is empty (the floor; at most the queue's maximum). */
  concurrency: number;
  /** Names the module instances (a new generation is a new, cold, environment). */
  environment: string;
  /**
   * This pool is one of `of` polling the same queues (the step workers' processes; `index` from 0):
   * it takes its share of each queue's `maxConcurrency`, so that all of them together stay within it.
   */
  share?: { index: number; of: number };
}

/** One generation of pollers: `stop` ends it (each finishes the batch in hand, deleting none of it). */
export interface PollerGeneration {
  stop(): Promise<void>;
  /** Per queue name: pollers running now (in a receive or with a batch in hand), and the most so far. */
  pollers(): Record<string, { running: number; peak: number; maximum: number }>;
}

/** This pool's share of `maximum` when `share.of` pools poll one queue (the first ones take the remainder). */
export function shareOf(maximum: number, share?: { index: number; of: number }) {
  if (!share || share.of <= 1) return maximum;
  return Math.floor(maximum / share.of) + (share.index < maximum % share.of ? 1 : 0);
}

/** A queue's pollers in this process: how many run, and its consumer's module instances. */
interface Pool {
  queue: PolledQueue;
  floor: number;
  maximum: number;
  /** Pollers started (a module instance being imported included). */
  running: number;
  peak: number;
  /** Pollers in a receive now. */
  receiving: number;
  /** Module instances no poller holds. */
  idle: Consumer[];
  imported: number;
}

/** Starts each queue's pollers at its floor; they grow and shrink with its messages (above). */
export async function startPollers(
  client: SQSClient,
  polled: PolledQueue[],
  options: PollerOptions,
): Promise<PollerGeneration> {
  const state = { running: true, receives: new AbortController() };
  const loops = new Set<Promise<void>>();
  const pools: Pool[] = [];

  // Each poller is one execution environment, with its own instance of the handler's module (its
  // imports are shared): a handler keeps the batch in hand in module state (Powertools' batch
  // processor does), which two batches at once would overwrite, failed records then being reported
  // done and deleted. An instance is imported when the pool grows past the ones it has.
  async function instance(pool: Pool): Promise<Consumer> {
    return pool.idle.pop() ?? (await imported(pool));
  }
  async function imported(pool: Pool): Promise<Consumer> {
    pool.imported += 1;
    return loadHandler<Consumer>(pool.queue.spec.handler, `${options.environment}-${pool.imported - 1}`);
  }

  function track(loop: Promise<void>) {
    loops.add(loop);
    const done = () => loops.delete(loop);
    loop.then(done, done);
  }

  /** One more poller for the pool, if it is below its maximum. */
  function grow(pool: Pool) {
    if (!state.running || pool.running >= pool.maximum) return;
    pool.running += 1;
    pool.peak = Math.max(pool.peak, pool.running);
    track(
      (async () => {
        let consumer: Consumer;
        try {
          consumer = await instance(pool);
        } catch (error) {
          pool.running -= 1;
          process.stderr.write(`local poller ${pool.queue.name}: ${String(error)}\n`);
          return;
        }
        let retired = false;
        try {
          retired = await poll(client, pool, consumer, state, grow);
        } finally {
          // A poller that retired has left the count already (at once, so no other one retires too).
          if (!retired) pool.running -= 1;
          pool.idle.push(consumer);
        }
      })(),
    );
  }

  for (const queue of polled) {
    const maximum = Math.max(1, shareOf(queue.spec.maxConcurrency, options.share));
    const pool: Pool = {
      queue,
      floor: Math.max(1, Math.min(options.concurrency, maximum)),
      maximum,
      running: 0,
      peak: 0,
      receiving: 0,
      idle: [],
      imported: 0,
    };
    pools.push(pool);
    // The floor's instances before the pollers start (their cold starts are the start's).
    for (let index = 0; index < pool.floor; index += 1) pool.idle.push(await imported(pool));
  }
  // Every poller's receive waits on the one signal that stops them all, and each listener goes when
  // its receive ends: more than ten at once is the design, not a leak, which Node warns of unless told.
  setMaxListeners(
    pools.reduce((sum, pool) => sum + pool.maximum, 0),
    state.receives.signal,
  );
  for (const pool of pools) for (let index = 0; index < pool.floor; index += 1) grow(pool);

  return {
    async stop() {
      state.running = false;
      state.receives.abort();
      while (loops.size > 0) await Promise.allSettled([...loops]);
    },
    pollers() {
      return Object.fromEntries(
        pools.map((pool) => [
          pool.queue.name,
          { running: pool.running, peak: pool.peak, maximum: pool.maximum },
        ]),
      );
    },
  };
}

/**
 * One poller: receives, hands the batch to its consumer, deletes what it did. True when it retired (an
 * empty receive above the floor), having taken itself off the pool's count.
 */
async function poll(
  client: SQSClient,
  pool: Pool,
  consumer: Consumer,
  state: { running: boolean; receives: AbortController },
  grow: (pool: Pool) => void,
): Promise<boolean> {
  const { queue } = pool;
  while (state.running) {
    let messages: Message[] = [];
    pool.receiving += 1;
    try {
      const received = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.url,
          MaxNumberOfMessages: queue.spec.batchSize,
          // The floor's pollers wait long; one above it, briefly, as it retires on an empty receive.
          WaitTimeSeconds: pool.running > pool.floor ? 1 : 20,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: state.receives.signal },
      );
      messages = received.Messages ?? [];
    } catch (error) {
      if (!state.running) return false;
      process.stderr.write(`local poller ${queue.name}: ${String(error)}\n`);
      await new Promise((done) => setTimeout(done, 500));
      continue;
    } finally {
      pool.receiving -= 1;
    }
    if (messages.length === 0) {
      // Empty: a poller above the floor stops (its instance stays, idle, for the next one).
      if (pool.running > pool.floor) {
        pool.running -= 1;
        return true;
      }
      continue;
    }
    // Messages waiting: a full batch, or none of the others free to take the next ones.
    if (messages.length >= queue.spec.batchSize || pool.receiving === 0) grow(pool);
    const event = toSqsEvent(messages, queue);
    let failed = new Set<string>();
    try {
      const context = lambdaContext(queue.name);
      const response = await inInvocation(context, () =>
        withOwnLogger('deposits', () => consumer(event, context)),
      );
      failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    } catch {
      // A handler that throws fails the whole batch, as in Lambda.
      failed = new Set(messages.map((message) => message.MessageId ?? ''));
    }
    const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
    if (done.length > 0 && state.running) {
      try {
        await client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queue.url,
            Entries: done.map((message, index) => ({
              Id: String(index),
              ReceiptHandle: message.ReceiptHandle,
            })),
          }),
        );
      } catch (error) {
        // Not deleted: the messages come back after the visibility timeout, as in Lambda.
        if (!state.running) return false;
        process.stderr.write(`local poller ${queue.name}: ${String(error)}\n`);
      }
    }
  }
  return false;
}

/** The record's `AWSTraceHeader`, as Lambda gives it, when its sender set one. */
function traceAttributeOf(message: Message): { AWSTraceHeader?: string } {
  const header = traceHeaderOfMessage(message);
  return header ? { AWSTraceHeader: header } : {};
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
        ...traceAttributeOf(message),
      },
      messageAttributes: {},
      md5OfBody: message.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: queue.arn,
      awsRegion: 'us-east-1',
    })),
  };
}
