/**
 * HTTP plumbing shared by every API handler: JSON bodies validated by a schema, answers as JSON, and
 * every error as the spec's failed envelope (an EnvelopeError with its type; anything else is logged
 * and answered INTERNAL_ERROR without details).
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { z } from 'zod';
import { logger } from '#shared/logger';
import { badRequest, EnvelopeError, ProviderError } from '#shared/spec/errors';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2;

export function json(statusCode: number, body: unknown): HttpResult {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

export function failedEnvelope(error: EnvelopeError) {
  return {
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
  if (!parsed.success) {
    throw badRequest(
      parsed.error.issues.map(
        (issue) => `${issue.path.length ? issue.path.join('.') : 'body'}: ${issue.message}`,
      ),
    );
  }
  return parsed.data;
}

/** Answers every error as a failed envelope; never a stack trace, never a 500 for bad input. */
export function errorEnvelope(): MiddlewareObj<HttpEvent, HttpResult> {
  return {
    onError: async (request) => {
      const { error } = request;
      if (error instanceof EnvelopeError) {
        request.response = json(error.status, failedEnvelope(error));
        return;
      }
      logger.error('unhandled error', { error: error as Error, path: request.event.rawPath });
      request.response = json(500, failedEnvelope(new ProviderError('INTERNAL_ERROR')));
    },
  };
}
