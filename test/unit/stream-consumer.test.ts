/**
 * The consumer of the deposits table's stream (the outbox relay's) works a batch's records one after
 * the other, in the stream's order: a deposit's versions reach the webhook queue in the order they
 * were written, however long each one takes to send.
 */
import type { Context, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { streamConsumer } from '#shared/middleware/sqs';

const context = {
  functionName: 'outbox',
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: () => 30_000,
} as Context;

describe('the stream consumer', () => {
  it('works the records of a batch in their order, each after the one before has finished', async () => {
    // prepare: the first record takes longest to handle
    const handled: string[] = [];
    const handler = streamConsumer(async (record) => {
      const id = record.eventID ?? '';
      await new Promise((resolve) => setTimeout(resolve, id === 'v1' ? 30 : 1));
      handled.push(id);
    });
    const records = ['v1', 'v2', 'v3'].map(
      (eventID, n) =>
        ({ eventID, eventName: 'MODIFY', dynamodb: { SequenceNumber: String(n + 1) } }) as DynamoDBRecord,
    );

    // act
    const response = await handler({ Records: records } as DynamoDBStreamEvent, context);

    // assess
    expect(handled).toEqual(['v1', 'v2', 'v3']);
    expect(response).toEqual({ batchItemFailures: [] });
  });
});
