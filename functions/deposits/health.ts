import middy from '@middy/core';
import { type HttpEvent, type HttpResult, json } from '#shared/middleware/http';

export const handler = middy<HttpEvent, HttpResult>().handler(async () => json(200, { status: 'ok' }));
