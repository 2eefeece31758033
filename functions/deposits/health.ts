import middy from '@middy/core';
import { errorEnvelope, type HttpEvent, type HttpResult, json } from '#shared/middleware/http';

export const handler = middy<HttpEvent, HttpResult>()
  .use(errorEnvelope())
  .handler(async () => json(200, { status: 'ok' }));
