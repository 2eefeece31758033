/**
 * Local DynamoDB Streams: a poller of a DynamoDB Local table's stream that hands the records to the
 * same stream handler Lambda runs, in order per shard, with Lambda's partial-batch semantics: from
 * the first record a handler reports as failed, the batch comes back on the next poll; after
 * `retryAttempts` tries that record is passed over (logged; in AWS its position goes to the event
 * source mapping's DLQ; the relay itself sets aside in its own DLQ what it could not relay). Only
 * records whose new image carries `filterAttribute` reach the handler, as the event source's filter
 * does in AWS.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { withOwnLogger } from '#shared/logger';
import { localCredentials } from './credentials.ts';
import { lambdaContext } from './lambda-context.ts';
import { inInvocation } from './traces.ts';

type StreamHandler = (
  event: DynamoDBStreamEvent,
  context: Context,
) => Promise<DynamoDBBatchResponse | undefined>;

export interface StreamPollerOptions {
  endpoint: string;
  tableName: string;
  handler: StreamHandler;
  functionName: string;
  filterAttribute: string;
  batchSize: number;
  retryAttempts: number;
  /**
   * The wait between polls while records come: 250 ms by default, as Lambda's event source mapping
   * polls a shard four times a second. DynamoDB Local's stream reads cost more with every write it
   * has taken (to any table: 200 reads took ten times the CPU after 20,000 writes): the end-to-end
   * project took a tenth more CPU with a poll every 50 ms.
   */
  intervalMs?: number;
  /**
   * The longest wait between polls of a stream that has had nothing new: the wait doubles from
   * `intervalMs` up to it (250 ms by default: Lambda's event source mapping polls a shard four times
   * a second). An idle stack then asks DynamoDB Local a few times a second, not twenty.
   */
  idleIntervalMs?: number;
  /** Shown every record new to the poller, whatever its image holds, before the filter and the handler. */
  observe?: (records: StreamRecord[]) => void;
}

interface Shard {
  iterator: string | undefined;
  /** The sequence number of the last record this shard handed on (or set aside). */
  last?: string | undefined;
  /** Tries of the record the handler last failed, by its sequence number. */
  failing?: { sequenceNumber: string; tries: number };
}

export async function startStreamPoller(options: StreamPollerOptions): Promise<{ stop(): Promise<void> }> {
  const config = { endpoint: options.endpoint, region: 'us-east-1', credentials: localCredentials };
  const tables = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  const { Table } = await tables.send(new DescribeTableCommand({ TableName: options.tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`table ${options.tableName} has no stream`);
  const shards = new Map<string, Shard>();
  let stopped = false;

  async function discover() {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const { ShardId } of StreamDescription?.Shards ?? []) {
      if (!ShardId || shards.has(ShardId)) continue;
      shards.set(ShardId, { iterator: await trimHorizon(ShardId) });
    }
  }

  async function trimHorizon(shardId: string) {
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    return ShardIterator;
  }

  /** Polls a shard once; how many records it had that were new to the poller. */
  async function poll(shardId: string, shard: Shard): Promise<number> {
    if (!shard.iterator) return 0;
    let page: { Records?: StreamRecord[] | undefined; NextShardIterator?: string | undefined };
    try {
      page = await streams.send(
        new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: options.batchSize }),
      );
    } catch (error) {
      // DynamoDB Local invalidates open iterators when a transaction writes several items of the
      // table: start again after the last record handed on (or from the shard's start, skipping
      // what was handed on already).
      if (!(error instanceof TrimmedDataAccessException || error instanceof ExpiredIteratorException))
        throw error;
      shard.iterator = shard.last
        ? await iteratorAfter(shardId, shard.last).catch(() => trimHorizon(shardId))
        : await trimHorizon(shardId);
      return 0;
    }
    const { NextShardIterator } = page;
    // Sequence numbers are zero-padded: they compare as text.
    const Records = (page.Records ?? []).filter(
      (record) => !shard.last || (record.dynamodb?.SequenceNumber ?? '') > shard.last,
    );
    try {
      options.observe?.(Records);
    } catch (error) {
      // A watcher of the records (the step lines) never holds up their relay.
      process.stderr.write(`local stream: an observer of ${options.tableName} failed: ${String(error)}\n`);
    }
    const batch = Records.filter((record) => record.dynamodb?.NewImage?.[options.filterAttribute]);
    const failedAt = batch.length ? await deliver(batch) : undefined;
    if (failedAt === undefined) {
      shard.failing = undefined;
      shard.last = Records.at(-1)?.dynamodb?.SequenceNumber ?? shard.last;
      shard.iterator = NextShardIterator;
      return Records.length;
    }
    const tries = shard.failing?.sequenceNumber === failedAt ? shard.failing.tries + 1 : 1;
    if (tries > options.retryAttempts) {
      process.stderr.write(`local stream: gave up on record ${failedAt} of ${options.tableName}\n`);
      shard.failing = undefined;
      shard.last = failedAt;
      shard.iterator = await iteratorAfter(shardId, failedAt);
      return Records.length;
    }
    shard.failing = { sequenceNumber: failedAt, tries };
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ShardIteratorType: 'AT_SEQUENCE_NUMBER',
        SequenceNumber: failedAt,
      }),
    );
    shard.iterator = ShardIterator;
    return Records.length;
  }

  async function iteratorAfter(shardId: string, sequenceNumber: string) {
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
        SequenceNumber: sequenceNumber,
      }),
    );
    return ShardIterator;
  }

  /** Hands a batch to the handler; the sequence number of the first record it failed, if any. */
  async function deliver(batch: StreamRecord[]): Promise<string | undefined> {
    const event: DynamoDBStreamEvent = {
      Records: batch.map((record) => lambdaRecord(record, streamArn ?? '')),
    };
    try {
      const context = lambdaContext(options.functionName);
      const response = await inInvocation(context, () =>
        withOwnLogger('deposits', () => options.handler(event, context)),
      );
      const failed = response?.batchItemFailures?.[0]?.itemIdentifier;
      if (failed) process.stderr.write(`local stream: ${options.functionName} failed record ${failed}\n`);
      return failed;
    } catch (error) {
      process.stderr.write(`local stream: ${options.functionName} failed: ${String(error)}\n`);
      return batch[0]?.dynamodb?.SequenceNumber;
    }
  }

  const loop = (async () => {
    let lastDiscovery = 0;
    const busyMs = options.intervalMs ?? 250;
    const idleMs = Math.max(busyMs, options.idleIntervalMs ?? 250);
    let waitMs = busyMs;
    while (!stopped) {
      let seen = 0;
      try {
        if (Date.now() - lastDiscovery > 1_000) {
          await discover();
          lastDiscovery = Date.now();
        }
        for (const [shardId, shard] of shards) seen += await poll(shardId, shard);
      } catch (error) {
        if (!stopped) process.stderr.write(`local stream: ${String(error)}\n`);
      }
      waitMs = seen > 0 ? busyMs : Math.min(idleMs, waitMs * 2);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  })();

  return {
    async stop() {
      stopped = true;
      await loop;
      tables.destroy();
      streams.destroy();
    },
  };
}

/** A stream record as Lambda hands it to a function. */
function lambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const change = record.dynamodb;
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventSource: 'aws:dynamodb',
    eventSourceARN: streamArn,
    awsRegion: 'us-east-1',
    dynamodb: {
      Keys: change?.Keys as never,
      NewImage: change?.NewImage as never,
      SequenceNumber: change?.SequenceNumber,
      StreamViewType: change?.StreamViewType,
      ApproximateCreationDateTime: change?.ApproximateCreationDateTime
        ? Math.floor(change.ApproximateCreationDateTime.getTime() / 1000)
        : undefined,
    },
  } as DynamoDBRecord;
}
