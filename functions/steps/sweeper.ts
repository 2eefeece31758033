import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { systemClock } from '#shared/clock';
import { type SweepContext, sweep } from '#shared/deposits/sweeper';
import { logger } from '#shared/logger';
import { queuesOf } from '#shared/wiring/messaging';
import { depositSettings, tableEntities } from '#shared/wiring/table';

const context: SweepContext = {
  due: tableEntities.due(),
  queues: queuesOf('sweeper'),
  clock: systemClock,
  settings: depositSettings(),
};

/** Runs on a recurring schedule: re-drives deposits that stopped moving. */
export const handler = middy()
  .use(injectLambdaContext(logger))
  .handler(async () => {
    const redriven = await sweep(context);
    if (redriven > 0) logger.warn('re-drove stalled deposits', { redriven });
    return { redriven };
  });
