/**
 * The deposits table's stream (NEW_IMAGE): the deposit a record's new image holds, and where the
 * stream had the record. Other entities of the table (claims, leases, idempotency records) and
 * removals carry no deposit.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { StreamPosition } from '#shared/deposits/background/outbox';
import type { Deposit } from '#shared/deposits/model/deposit';
import { depositFromItem } from './deposit-record.ts';

export function depositOf(record: DynamoDBRecord): Deposit | undefined {
  const image = record.dynamodb?.NewImage;
  if (!image || record.eventName === 'REMOVE') return undefined;
  const item = unmarshall(image as Record<string, AttributeValue>);
  return item.sk === 'DEPOSIT' ? depositFromItem(item) : undefined;
}

/** The record's place in the stream (its shard is in the stream's own order of sequence numbers). */
export function streamPositionOf(record: DynamoDBRecord): StreamPosition {
  const written = record.dynamodb?.ApproximateCreationDateTime;
  return {
    eventId: record.eventID,
    sequenceNumber: record.dynamodb?.SequenceNumber,
    streamArn: record.eventSourceARN,
    writtenAt: written === undefined ? undefined : new Date(written * 1000).toISOString(),
  };
}
