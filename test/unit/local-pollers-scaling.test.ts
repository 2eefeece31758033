/**
 * The local queue pollers scale as Lambda's SQS event source mapping does (`infra/local/pollers.ts`),
 * over a real fauxqs: from the floor up to the queue's `maxConcurrency` while its messages wait, never
 * past it, and back to the floor once it is empty; each batch in a module instance of its own. The
 * consumer is this file's own (a module written to a temporary folder): it counts the batches in hand
 * across its instances and holds each until the test opens its gate.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localCredentials } from '#infra/local/credentials';
import { sourceHandlers, useHandlers } from '#infra/local/handlers';
import { type PolledQueue, type PollerGeneration, shareOf, startPollers } from '#infra/local/pollers';
import type { HandlerName } from '#shared/topology';
import { eventually } from '../support/eventually.ts';

/** What the consumer's instances share (on globalThis: each instance is a module of its own). */
interface Probe {
  inFlight: number;
  peak: number;
  handled: number;
  /** Module instances that handled a batch. */
  instances: Set<string>;
  /** Instances with a batch in hand now. */
  busy: Set<string>;
  /** Batches handed to an instance that had one in hand already (must stay 0). */
  shared: number;
  gate: () => Promise<void>;
}

const consumerSource = `
const me = import.meta.url + ' ' + Math.random();
export async function handler(event) {
  const probe = globalThis.__pollerProbe;
  if (probe.busy.has(me)) probe.shared += 1;
  probe.busy.add(me);
  probe.instances.add(me);
  probe.inFlight += 1;
  probe.peak = Math.max(probe.peak, probe.inFlight);
  try {
    await probe.gate();
    probe.handled += event.Records.length;
    return { batchItemFailures: [] };
  } finally {
    probe.inFlight -= 1;
    probe.busy.delete(me);
  }
}
`;

const probe: Probe = {
  inFlight: 0,
  peak: 0,
  handled: 0,
  instances: new Set(),
  busy: new Set(),
  shared: 0,
  gate: async () => undefined,
};
(globalThis as { __pollerProbe?: Probe }).__pollerProbe = probe;

/** Closes the consumer's gate: every batch waits in its handler until `open()`. */
function closeGate() {
  let open = () => {};
  const closed = new Promise<void>((done) => {
    open = done;
  });
  probe.gate = () => closed;
  return () => {
    probe.gate = async () => undefined;
    open();
  };
}

const floor = 2;
const maximum = 5;
let folder: string;
let server: Awaited<ReturnType<typeof startFauxqs>>;
let client: SQSClient;
let queue: PolledQueue;
let pollers: PollerGeneration | undefined;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'poller-scaling-'));
  const consumer = join(folder, 'consumer.mjs');
  writeFileSync(consumer, consumerSource);
  useHandlers((_file, instance) => sourceHandlers(consumer, instance));
  server = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
  client = new SQSClient({ endpoint: server.address, region: 'us-east-1', credentials: localCredentials });
  const { QueueUrl } = await client.send(
    new CreateQueueCommand({ QueueName: 'scaling', Attributes: { VisibilityTimeout: '60' } }),
  );
  if (!QueueUrl) throw new Error('no queue');
  queue = {
    name: 'scaling',
    url: QueueUrl,
    arn: 'arn:aws:sqs:us-east-1:000000000000:scaling',
    spec: {
      urlEnvVar: 'SCALING_QUEUE_URL',
      localName: 'scaling',
      // Loaded through the stack's loader, which gives this file's module for it (below).
      handler: 'scaling-consumer' as HandlerName,
      maxReceiveCount: 5,
      batchSize: 10,
      maxConcurrency: maximum,
    },
  };
});

afterAll(async () => {
  await pollers?.stop();
  useHandlers(sourceHandlers);
  client?.destroy();
  await server?.stop();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

async function send(count: number) {
  for (let sent = 0; sent < count; sent += 10) {
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: Array.from({ length: Math.min(10, count - sent) }, (_, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify({ n: sent + index }),
        })),
      }),
    );
  }
}

/** Messages waiting or in flight on the queue. */
async function inQueue() {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queue.url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

const running = () => pollers?.pollers().scaling?.running ?? 0;

describe('local queue pollers scale as an event source mapping does', () => {
  it("shares a queue's maximum among the processes that poll it", () => {
    expect(shareOf(5)).toBe(5);
    expect([shareOf(5, { index: 0, of: 2 }), shareOf(5, { index: 1, of: 2 })]).toEqual([3, 2]);
    expect([0, 1, 2].map((index) => shareOf(5, { index, of: 3 }))).toEqual([2, 2, 1]);
  });

  it('grows past the floor while messages wait, never past the maximum, and shrinks back when empty', async () => {
    pollers = await startPollers(client, [queue], { concurrency: floor, environment: 'scaling' });
    expect(running()).toBe(floor);

    // 200 messages, every batch held: the pool grows batch by batch until the maximum are in hand.
    const open = closeGate();
    await send(200);
    await eventually(async () => (probe.inFlight === maximum ? true : undefined));
    expect(running()).toBe(maximum);

    // Let them go: the other 150 come in full batches to pollers already at the maximum.
    open();
    await eventually(async () => (probe.handled === 200 && (await inQueue()) === 0 ? true : undefined));
    expect(probe.peak).toBe(maximum);
    expect(pollers.pollers().scaling?.peak).toBe(maximum);

    // Empty: the pollers above the floor stop after an empty receive each.
    await eventually(async () => (running() === floor ? true : undefined));
    expect(probe.shared).toBe(0);
    expect(probe.instances.size).toBe(maximum);
  });

  it('grows again with the instances it has, and a stop finishes the batches in hand, deleting none', async () => {
    const open = closeGate();
    await send(100);
    await eventually(async () => (probe.inFlight === maximum ? true : undefined));
    // The idle instances were taken again: none imported beyond the maximum.
    expect(probe.instances.size).toBe(maximum);

    let stopped = false;
    const stopping = pollers?.stop().then(() => {
      stopped = true;
    });
    // The stop waits for the batches in hand (polled as a condition, not slept on).
    await eventually(async () => (probe.inFlight === maximum && !stopped ? true : undefined));
    open();
    await stopping;
    pollers = undefined;
    expect(probe.inFlight).toBe(0);
    expect(probe.peak).toBe(maximum);
    expect(probe.shared).toBe(0);
    // Their messages were not deleted: all 100 are still on the queue (50 in flight until the timeout).
    expect(await inQueue()).toBe(100);
  });
});
