import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { logger } from '#shared/logger';
import { errorEnvelope, type HttpEvent, type HttpResult } from '#shared/middleware/http';
import { ProviderError } from '#shared/provider/interface/errors';

/** The `$default` route: any method and path the operator API does not serve. */
export const handler = middy<HttpEvent, HttpResult>()
  .use(injectLambdaContext(logger))
  .use(errorEnvelope())
  .handler(async (event) => {
    throw new ProviderError('NOT_FOUND', `No route for ${event.requestContext.http.method} ${event.rawPath}`);
  });
