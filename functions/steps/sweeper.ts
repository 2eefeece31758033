import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { workflow } from '#shared/deposits/runtime';
import { logger } from '#shared/logger';

/** Runs on a recurring schedule: re-drives deposits that stopped moving. */
export const handler = middy()
  .use(injectLambdaContext(logger))
  .handler(async () => {
    const redriven = await workflow.sweep();
    if (redriven > 0) logger.warn('re-drove stalled deposits', { redriven });
    return { redriven };
  });
