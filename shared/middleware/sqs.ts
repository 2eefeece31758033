/**
 * An SQS consumer: Powertools' BatchProcessor with partial-batch responses, so a record that fails is
 * reported (and retried, then dead-lettered) without failing the batch. Each record's body is parsed
 * with a zod schema; a body that does not parse fails like any other record and ends in the DLQ.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { z } from 'zod';
import { StepMessage, type WorkStep } from '#shared/deposits/model';
import { handleStepMessage, type StepHandler } from '#shared/deposits/step-messages';
import { logger } from '#shared/logger';

export function sqsConsumer<S extends z.ZodType>(
  schema: S,
  handle: (message: z.infer<S>, record: SQSRecord) => Promise<void>,
) {
  const processor = new BatchProcessor(EventType.SQS);
  const recordHandler = async (record: SQSRecord) => {
    await handle(schema.parse(JSON.parse(record.body)), record);
  };
  return middy<SQSEvent, SQSBatchResponse>()
    .use(injectLambdaContext(logger))
    .handler((event: SQSEvent, context: Context) =>
      processPartialResponse(event, recordHandler, processor, { context }),
    );
}

/**
 * The consumer of one step's queue: each message runs that step (or its question's expiry); a
 * message naming another step is not run here, and is logged so a misrouted sender shows.
 */
export function stepConsumer<S extends WorkStep>(handler: StepHandler<S>) {
  return sqsConsumer(StepMessage, async (message) => {
    const outcome = await handleStepMessage(handler, message);
    if (outcome === 'other-step') {
      logger.warn('dropped a message for another step', { step: handler.step, message });
    }
  });
}
