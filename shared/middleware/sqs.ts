/**
 * Batch consumers. An SQS consumer: Powertools' BatchProcessor with partial-batch responses, so a record that fails is
 * reported (and retried, then dead-lettered) without failing the batch. Each record's body is parsed
 * with a zod schema; a body that does not parse fails like any other record and ends in the DLQ.
 * Each invocation is traced (`traceInvocation`); a record that names its deposit (`depositOf`) is
 * worked in that deposit's trace: its message's own (`traceOf`), else the record's `AWSTraceHeader`.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type {
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';
import type { z } from 'zod';
import { logger } from '#shared/logger';
import { traceHeaderOf, traceInvocation, withDepositTrace } from '#shared/tracing';

/** Which deposit a message is about, and the trace it carries in its body (a step message's). */
export interface RecordDeposit<M> {
  depositOf(message: M): string;
  traceOf?(message: M): string | undefined;
}

export function sqsConsumer<S extends z.ZodType>(
  schema: S,
  handle: (message: z.infer<S>, record: SQSRecord) => Promise<void>,
  deposit?: RecordDeposit<z.infer<S>>,
) {
  const processor = new BatchProcessor(EventType.SQS);
  const recordHandler = async (record: SQSRecord) => {
    const message = schema.parse(JSON.parse(record.body));
    if (!deposit) return handle(message, record);
    const trace =
      traceHeaderOf(deposit.traceOf?.(message)) ?? traceHeaderOf(record.attributes.AWSTraceHeader);
    await withDepositTrace(deposit.depositOf(message), trace, () => handle(message, record));
  };
  return middy<SQSEvent, SQSBatchResponse>()
    .use(injectLambdaContext(logger))
    .use(traceInvocation())
    .handler((event: SQSEvent, context: Context) =>
      processPartialResponse(event, recordHandler, processor, { context }),
    );
}

/**
 * A DynamoDB stream consumer, the same way: a record that fails is reported (from it on, the batch
 * comes back, in order), the others are done. Each record is handled with the invocation's context
 * (its remaining time).
 */
export function streamConsumer(handle: (record: DynamoDBRecord, context: Context) => Promise<void>) {
  const processor = new BatchProcessor(EventType.DynamoDBStreams);
  return middy<DynamoDBStreamEvent, DynamoDBBatchResponse>()
    .use(injectLambdaContext(logger))
    .use(traceInvocation())
    .handler((event: DynamoDBStreamEvent, context: Context) =>
      // One record after the other: a deposit's versions reach the relay in the order they were written.
      processPartialResponse(event, (record: DynamoDBRecord) => handle(record, context), processor, {
        context,
        processInParallel: false,
      }),
    );
}
