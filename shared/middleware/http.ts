/**
 * HTTP plumbing shared by every API handler: JSON bodies validated by a schema, answers as JSON, and
 * every error as the spec's failed envelope (an EnvelopeError with its type; anything else is logged
 * and answered INTERNAL_ERROR without details). The handlers themselves refuse a body over
 * `MAX_BODY_BYTES` (413), so AWS answers as the local stack does, and every error body carries the
 * request's id (`requestId`, also the `x-request-id` header of every answer) for a caller to quote.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import { DepositError } from '#shared/deposits/model/errors';
import { logger } from '#shared/logger';
import { badRequest, type EnvelopeError, ProviderError } from '#shared/provider/interface/errors';
import { envelopeOf } from './api-errors.ts';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2;

/** The largest request body a handler reads: 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** An answer with a status of its own; a route that returns anything else answers it with 200. */
export class Answer {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/** What a route's action returned, as its status and body. */
export function answerOf(result: unknown): { status: number; body: unknown } {
  return result instanceof Answer ? result : { status: 200, body: result };
}

export function json(statusCode: number, body: unknown): HttpResult {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

export function failedEnvelope(error: EnvelopeError) {
  return {
    ...(error.operation ? { [error.operation.idField]: error.operation.id } : {}),
    success: false,
    status: 'failed',
    type: error.type,
    msg: error.message,
    ...(error.details ? { details: error.details } : {}),
  };
}

/** Parses and validates the JSON body; BAD_REQUEST (with the offending fields) otherwise. */
export function parseBody<S extends z.ZodType>(event: HttpEvent, schema: S): z.infer<S> {
  const raw =
    event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  let body: unknown;
  try {
    body = JSON.parse(raw ?? '');
  } catch {
    throw badRequest(['body is not valid JSON']);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw badRequest(problemsOf(parsed.error));
  return parsed.data;
}

/** What is wrong with a body, a line per field: `field: message` (`body` for the body itself). */
export function problemsOf(error: z.ZodError): string[] {
  return error.issues.flatMap((issue) => {
    const at = issue.path.map(String);
    // An unknown field (the request schemas are strict) is named, each on its own line.
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => `${[...at, key].join('.')}: unknown field, not part of this request`);
    return [`${at.length ? at.join('.') : 'body'}: ${issue.message}`];
  });
}

/** The most of the problems a failed envelope's `msg` names (all of them are in `details`). */
const MSG_PROBLEMS = 3;

/**
 * The deposits and operator APIs' body (not the sandbox's, whose refusals keep the spec's fixed
 * texts): `Content-Type: application/json` or 415 UNSUPPORTED_MEDIA_TYPE before anything is read
 * (so no form or `text/plain` body a browser sends cross-site is ever taken); then JSON, then the
 * route's schema (strict: an unknown field is refused, named). A BAD_REQUEST's `msg` says what is
 * wrong; `details` has a line per problem.
 */
export function parseApiBody<S extends z.ZodType>(event: HttpEvent, schema: S): z.infer<S> {
  const sent = event.headers?.['content-type']?.trim();
  const mediaType = sent?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new DepositError(
      'UNSUPPORTED_MEDIA_TYPE',
      sent
        ? `Send the body as Content-Type: application/json, not ${sent.slice(0, 100)}`
        : 'Send the body as Content-Type: application/json (no Content-Type was sent)',
    );
  }
  const raw =
    event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  let body: unknown;
  try {
    body = JSON.parse(raw ?? '');
  } catch {
    const msg = raw ? 'The body is not valid JSON' : 'The body is empty: send a JSON object';
    throw new DepositError('BAD_REQUEST', msg, ['body is not valid JSON']);
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw invalidRequest(problemsOf(parsed.error));
}

/** A BAD_REQUEST whose `msg` names what is wrong (the first few problems), each one in `details`. */
export function invalidRequest(problems: string[]): DepositError {
  const named = problems.slice(0, MSG_PROBLEMS).join('; ');
  const more = problems.length > MSG_PROBLEMS ? ` (and ${problems.length - MSG_PROBLEMS} more)` : '';
  return new DepositError('BAD_REQUEST', `Invalid request: ${named}${more}`, problems);
}

/** The id a caller can quote for this request: the API's own request id (the Lambda's as a fallback). */
function requestIdOf(event: HttpEvent, awsRequestId: string | undefined): string {
  return event.requestContext?.requestId ?? awsRequestId ?? 'unknown';
}

/** The body's size in bytes as the client sent it (a base64 body decoded). */
function bodyBytes(event: HttpEvent): number {
  if (!event.body) return 0;
  return Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

/** Adds the request id to an answer: its header always, its body when it is an error envelope. */
function withRequestId(result: HttpResult, requestId: string): HttpResult {
  const headers = { ...result.headers, 'x-request-id': requestId };
  if ((result.statusCode ?? 200) < 400 || typeof result.body !== 'string') return { ...result, headers };
  try {
    const body = JSON.parse(result.body) as unknown;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return { ...result, headers };
    return { ...result, headers, body: JSON.stringify({ ...body, requestId }) };
  } catch {
    return { ...result, headers };
  }
}

/**
 * Every API handler's guard: a body over `MAX_BODY_BYTES` is refused before it is parsed (413
 * PAYLOAD_TOO_LARGE); every error becomes a failed envelope, never a stack trace, never a 500 for bad
 * input; every answer carries the request id, and every error body too.
 */
export function errorEnvelope(): MiddlewareObj<HttpEvent, HttpResult> {
  return {
    before: async (request) => {
      if (bodyBytes(request.event) > MAX_BODY_BYTES) throw new ProviderError('PAYLOAD_TOO_LARGE');
    },
    after: async (request) => {
      if (!request.response) return;
      const requestId = requestIdOf(request.event, request.context?.awsRequestId);
      request.response = withRequestId(request.response, requestId);
    },
    onError: async (request) => {
      const { error } = request;
      const requestId = requestIdOf(request.event, request.context?.awsRequestId);
      const envelope = envelopeOf(error);
      if (envelope) {
        const answer = json(envelope.status, failedEnvelope(envelope));
        const response = envelope.headers
          ? { ...answer, headers: { ...answer.headers, ...envelope.headers } }
          : answer;
        request.response = withRequestId(response, requestId);
        return;
      }
      logger.error('unhandled error', { error: error as Error, path: request.event.rawPath, requestId });
      request.response = withRequestId(
        json(500, failedEnvelope(new ProviderError('INTERNAL_ERROR'))),
        requestId,
      );
    },
  };
}
