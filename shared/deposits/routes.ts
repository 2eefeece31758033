/**
 * The deposits API's handler shape: middy, the failed envelope for every error, the JSON body
 * validated, and the caller's bearer token (the provider access token of the user's connection):
 * `X-Provider-Authorization: Bearer <token>` when sent (in AWS `Authorization` carries the wallet
 * backend's own SigV4 signature or JWT), else `Authorization: Bearer <token>`.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { z } from 'zod';
import { logger } from '#shared/logger';
import { errorEnvelope, type HttpEvent, type HttpResult, json, parseBody } from '#shared/middleware/http';
import { bearerTokenOf } from '#shared/spec/limits';
import { DepositError } from './errors.ts';
import { IdempotencyKey } from './schemas.ts';

export interface DepositRouteInput<T> {
  body: T;
  accessToken: string;
  event: HttpEvent;
}

export function depositRoute<S extends z.ZodType>(
  schema: S,
  action: (input: DepositRouteInput<z.infer<S>>) => Promise<{ status: number; body: unknown }>,
) {
  return middy<HttpEvent, HttpResult>()
    .use(injectLambdaContext(logger))
    .use(errorEnvelope())
    .handler(async (event) => {
      const body = parseBody(event, schema);
      const accessToken = bearerTokenOf(
        event.headers['x-provider-authorization'] ?? event.headers.authorization,
      );
      if (!accessToken) throw new DepositError('UNAUTHORIZED', 'Invalid access token');
      const { status, body: answer } = await action({ body, accessToken, event });
      return json(status, answer);
    });
}

/** The request's `Idempotency-Key` header, required on the create routes. */
export function idempotencyKeyOf(event: HttpEvent): string {
  const key = IdempotencyKey.safeParse(event.headers['idempotency-key']);
  if (!key.success) {
    throw new DepositError('BAD_REQUEST', 'Invalid JSON request', [
      'Idempotency-Key header: required, 1 to 255 printable characters',
    ]);
  }
  return key.data;
}
