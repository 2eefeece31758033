/** The SQS consumer of one deposit step's queue, composed from the batch consumer and the step runner. */
import { passesWithTime } from '#shared/adapters/passing-errors';
import { stepMessageMaxTries } from '#shared/config';
import { handleStepMessage, type StepHandler } from '#shared/deposits/journey/step-messages';
import { type FailContext, giveUp } from '#shared/deposits/journey/transitions';
import { wakeFollowers } from '#shared/deposits/journey/wake-ups';
import type { WorkStep } from '#shared/deposits/model/deposit';
import { StepMessage } from '#shared/deposits/model/messages';
import { logger } from '#shared/logger';
import { sqsConsumer } from '#shared/middleware/sqs';
import { traceHeaderOf, withDepositTrace } from '#shared/tracing';

/**
 * The consumer of one step's queue: each message runs that step (or its question's expiry), on
 * the try the queue counts (each failed try logged with its error); a message naming another step
 * is not run here, and is logged so a misrouted sender shows. A deposit whose step keeps failing is
 * ended through `failing` (unless its last try's error passes with time: `passing-errors.ts`), and a
 * finished source's followers are woken through it.
 */
export function stepConsumer<S extends WorkStep>(
  handler: Omit<StepHandler<S>, 'giveUp' | 'limits' | 'handOn'>,
  failing: FailContext,
) {
  const limits = {
    maxAttempts: stepMessageMaxTries,
    maxRedrives: failing.settings.maxRedrives,
    passesWithTime,
  };
  const giving = {
    ...handler,
    limits,
    giveUp: async (deposit: Parameters<StepHandler<S>['giveUp']>[0], reason: string) => {
      logger.error('a deposit step kept failing', { depositId: deposit.id, step: deposit.step, reason });
      await giveUp(failing, deposit, reason);
    },
    handOn: (source: Parameters<StepHandler<S>['handOn']>[0]) => wakeFollowers(failing.followers, source),
  };
  return sqsConsumer(
    StepMessage,
    async (message, record) => {
      const attempt = Number(record.attributes.ApproximateReceiveCount ?? '1');
      const outcome =
        message.trace === undefined
          ? await inItsTrace(giving, message, attempt)
          : await tryStep(giving, message, attempt);
      if (outcome === 'other-step') {
        // Under its own key: `message` is the log line's own (the logger drops a field of that name).
        const { step, version, kind } = message;
        logger.warn('dropped a message for another step', {
          step: handler.step,
          dropped: { step, version, kind },
        });
      }
    },
    { depositOf: (message) => message.depositId, traceOf: (message) => message.trace },
  );
}

/**
 * A message sent without its deposit's trace (the sweeper's re-drive and a source's wake of its
 * followers have only the deposit's keys at hand) is worked in the trace the deposit keeps: the
 * deposit is read first, and that read is the one the step works from.
 */
async function inItsTrace<S extends WorkStep>(
  handler: StepHandler<S>,
  message: StepMessage,
  attempt: number,
) {
  const deposit = await handler.deposits.get(message.depositId);
  const read = { ...handler, deposits: { get: async () => deposit } };
  const trace = traceHeaderOf(deposit?.trace);
  const run = () => tryStep(read, message, attempt);
  return trace ? withDepositTrace(message.depositId, trace, run) : run();
}

/** One try of the step; a try that fails before the last is on record with its error. */
function tryStep<S extends WorkStep>(handler: StepHandler<S>, message: StepMessage, attempt: number) {
  return handleStepMessage(handler, message, attempt).catch((error: unknown) => {
    // A try that fails before the last: its message comes back; each such try is on record, so
    // a deposit that spends its tries shows what spent each (the last ends it: `giveUp`).
    logger.warn('a deposit step try failed; its message comes back', {
      step: message.step,
      version: message.version,
      attempt,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    throw error;
  });
}
