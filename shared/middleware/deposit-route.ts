/**
 * The deposits API's handler shape: middy, the failed envelope for every error, the JSON body
 * validated, and the caller's bearer token (the provider access token of the user's connection):
 * `X-Provider-Authorization: Bearer <token>` when sent, else `Authorization: Bearer <token>`; but
 * behind an authorizer (in AWS: IAM or JWT) `Authorization` is the wallet backend's own identity,
 * never the user's token: it must never reach the provider, so there the token must come in
 * `X-Provider-Authorization` (401 without it).
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { z } from 'zod';
import { IdempotencyKey } from '#shared/contracts/deposits-schemas';
import { DepositError } from '#shared/deposits/errors';
import { logger } from '#shared/logger';
import {
  answerOf,
  errorEnvelope,
  type HttpEvent,
  type HttpResult,
  json,
  parseBody,
} from '#shared/middleware/http';
import { bearerTokenOf } from '#shared/provider/interface/limits';

export interface DepositRouteInput<T> {
  body: T;
  accessToken: string;
  event: HttpEvent;
}

export function depositRoute<S extends z.ZodType>(
  schema: S,
  action: (input: DepositRouteInput<z.infer<S>>) => Promise<unknown>,
) {
  return middy<HttpEvent, HttpResult>()
    .use(injectLambdaContext(logger))
    .use(errorEnvelope())
    .handler(async (event) => {
      const body = parseBody(event, schema);
      const accessToken = bearerTokenOf(providerAuthorizationOf(event));
      if (!accessToken) throw new DepositError('UNAUTHORIZED', 'Invalid access token');
      const { status, body: answer } = answerOf(await action({ body, accessToken, event }));
      return json(status, answer);
    });
}

/** The header that carries the user's provider token: never the backend's own `Authorization`. */
function providerAuthorizationOf(event: HttpEvent): string | undefined {
  const sent = event.headers['x-provider-authorization'];
  if (sent !== undefined) return sent;
  const context = event.requestContext as HttpEvent['requestContext'] & { authorizer?: unknown };
  if (context.authorizer) {
    throw new DepositError('UNAUTHORIZED', 'X-Provider-Authorization: Bearer <access token> is required');
  }
  return event.headers.authorization;
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
