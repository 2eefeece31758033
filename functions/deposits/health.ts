import middy from '@middy/core';
import { errorEnvelope, type HttpEvent, type HttpResult, json } from '#shared/middleware/http';
import { traceInvocation } from '#shared/tracing';

export const handler = middy<HttpEvent, HttpResult>()
  .use(traceInvocation())
  .use(errorEnvelope())
  .handler(async () => json(200, { status: 'ok' }));
