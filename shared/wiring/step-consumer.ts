/** The SQS consumer of one deposit step's queue, composed from the batch consumer and the step runner. */
import { StepMessage, type WorkStep } from '#shared/deposits/model';
import { handleStepMessage, type StepHandler } from '#shared/deposits/step-messages';
import { logger } from '#shared/logger';
import { sqsConsumer } from '#shared/middleware/sqs';

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
