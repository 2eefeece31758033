import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { logger } from '#shared/logger';
import { type HttpEvent, type HttpResult, json } from '#shared/middleware/http';

/** The `$default` route: any method and path the deposits API does not serve. */
export const handler = middy<HttpEvent, HttpResult>()
  .use(injectLambdaContext(logger))
  .handler(async (event) =>
    json(404, {
      success: false,
      status: 'failed',
      type: 'NOT_FOUND',
      msg: `No route for ${event.requestContext.http.method} ${event.rawPath}`,
    }),
  );
