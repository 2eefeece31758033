import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { countRedriveFailures } from '#shared/adapters/metrics';
import { type SweepContext, sweep } from '#shared/deposits/background/sweeper';
import type { RedriveFailures } from '#shared/deposits/ports/records';
import { logger } from '#shared/logger';
import { traceInvocation } from '#shared/tracing';
import { handlerContext } from '#shared/wiring/handler-context';

/** A deposit the run could not re-drive, in the logs by its id (its due projection holds no secret). */
const failures: RedriveFailures = {
  failed(deposit, during, error) {
    logger.error('could not re-drive a deposit', {
      depositId: deposit.id,
      step: deposit.step,
      during,
      error,
    });
  },
};

const context: SweepContext = { ...(await handlerContext('steps-sweeper')), failures };

/**
 * Runs on a recurring schedule: re-drives deposits that stopped moving, each on its own, and takes
 * no more once the invocation's remaining time is short (the next run takes the rest).
 */
export const handler = middy()
  .use(injectLambdaContext(logger))
  .use(traceInvocation())
  .handler(async (_event: unknown, lambda: Context) => {
    const run = await sweep({ ...context, timeLeftMs: () => lambda.getRemainingTimeInMillis() });
    countRedriveFailures(run.failed);
    const { redriven, ...rest } = run;
    if (redriven + rest.failed > 0 || rest.cutShort)
      logger.warn('re-drove stalled deposits', { redriven }, rest);
    return run;
  });
