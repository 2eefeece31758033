/**
 * The handlers' own HTTP guard (shared/middleware/http.ts), as Lambda runs it behind API Gateway: the
 * 1 MiB body limit answered as a 413 envelope (plain and base64 bodies alike, as AWS sends them), and
 * the request id on every answer and in every error body.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { logger } from '#shared/logger';
import {
  errorEnvelope,
  type HttpEvent,
  type HttpResult,
  json,
  MAX_BODY_BYTES,
} from '#shared/middleware/http';
import { ProviderError } from '#shared/provider/interface/errors';

beforeAll(() => logger.setLogLevel('SILENT'));

const context = { awsRequestId: 'lambda-request-id' } as Context;

function eventWith(
  body: string | undefined,
  options: { base64?: boolean; requestId?: string } = {},
): HttpEvent {
  return {
    version: '2.0',
    routeKey: 'POST /x',
    rawPath: '/x',
    rawQueryString: '',
    headers: {},
    requestContext: {
      requestId: options.requestId ?? 'api-request-id',
      http: { method: 'POST', path: '/x' },
    },
    isBase64Encoded: options.base64 ?? false,
    ...(body === undefined ? {} : { body }),
  } as unknown as HttpEvent;
}

/** A handler behind the guard: answers what `act` returns, or throws what it throws. */
const handlerOf = (act: () => Promise<HttpResult>) =>
  middy<HttpEvent, HttpResult>().use(errorEnvelope()).handler(act);
const ok = handlerOf(async () => json(200, { status: 'ok' }));

describe('the body limit', () => {
  it('reads a body of exactly 1 MiB', async () => {
    // act
    const result = await ok(eventWith('x'.repeat(MAX_BODY_BYTES)), context);

    // assess
    expect(result.statusCode).toBe(200);
  });

  it.each([
    ['a plain body', eventWith('x'.repeat(MAX_BODY_BYTES + 1))],
    [
      'a base64 body (as API Gateway sends binary)',
      eventWith(Buffer.alloc(MAX_BODY_BYTES + 1, 1).toString('base64'), { base64: true }),
    ],
    ['a body of multi-byte characters over 1 MiB in bytes', eventWith('é'.repeat(MAX_BODY_BYTES / 2 + 1))],
  ])('answers 413 PAYLOAD_TOO_LARGE for %s, before the handler runs', async (_name, event) => {
    // prepare
    let ran = false;
    const handler = handlerOf(async () => {
      ran = true;
      return json(200, {});
    });

    // act
    const result = await handler(event, context);

    // assess
    expect(result.statusCode).toBe(413);
    expect(JSON.parse(String(result.body))).toEqual({
      success: false,
      status: 'failed',
      type: 'PAYLOAD_TOO_LARGE',
      msg: 'Request body is too large',
      requestId: 'api-request-id',
    });
    expect(ran).toBe(false);
  });
});

describe('the request id', () => {
  it('is in the header of every answer, and not added to a success body', async () => {
    // act
    const result = await ok(eventWith('{}'), context);

    // assess
    expect(result.headers).toMatchObject({ 'x-request-id': 'api-request-id' });
    expect(JSON.parse(String(result.body))).toEqual({ status: 'ok' });
  });

  it('is in a refusal the handler throws, a failure it answers, and an unexpected error', async () => {
    // prepare
    const refusal = handlerOf(async () => {
      throw new ProviderError('UNAUTHORIZED');
    });
    const answered = handlerOf(async () =>
      json(422, { success: false, status: 'failed', type: 'X', msg: 'y' }),
    );
    const broken = handlerOf(async () => {
      throw new Error('secret detail');
    });

    // act
    const results = [
      await refusal(eventWith('{}'), context),
      await answered(eventWith('{}'), context),
      await broken(eventWith('{}', { requestId: 'other-id' }), context),
    ];

    // assess
    const bodies = results.map((result) => JSON.parse(String(result.body)));
    expect(results.map((result) => result.statusCode)).toEqual([401, 422, 500]);
    expect(bodies[0]).toMatchObject({ type: 'UNAUTHORIZED', requestId: 'api-request-id' });
    expect(bodies[1]).toMatchObject({ type: 'X', requestId: 'api-request-id' });
    expect(bodies[2]).toEqual({
      success: false,
      status: 'failed',
      type: 'INTERNAL_ERROR',
      msg: 'Internal error',
      requestId: 'other-id',
    });
  });

  it("falls back to Lambda's request id when the event has none", async () => {
    // prepare
    const event = { ...eventWith('{}'), requestContext: undefined } as unknown as HttpEvent;
    const refusal = handlerOf(async () => {
      throw new ProviderError('NOT_FOUND');
    });

    // act
    const result = await refusal(event, context);

    // assess
    expect(JSON.parse(String(result.body))).toMatchObject({ requestId: 'lambda-request-id' });
  });
});
