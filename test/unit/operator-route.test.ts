/**
 * The route that takes the operator's identity from the IAM authorizer, through the fakes: it acts as
 * the authorizer's caller, refuses a request without an identity before reading its body and a body
 * off its schema, and writes its audit line (who, what, the answer) for every call.
 */
import type { Context } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GetRequest } from '#shared/contracts/operator-schemas';
import { logger } from '#shared/logger';
import type { HttpEvent } from '#shared/middleware/http';
import { operatorRoute } from '#shared/middleware/operator-route';

beforeAll(() => logger.setLogLevel('SILENT'));

describe('the operator route', () => {
  const route = operatorRoute(GetRequest, async ({ body, who }) => ({ who, ...body }));
  const event = (authorizer: unknown, body = '{"operationID":"dep_1"}') =>
    ({
      version: '2.0',
      rawPath: '/v1/ops/deposits/get',
      headers: { 'content-type': 'application/json' },
      requestContext: {
        requestId: 'r-1',
        http: { method: 'POST', path: '/v1/ops/deposits/get' },
        authorizer,
      },
      isBase64Encoded: false,
      body,
    }) as unknown as HttpEvent;
  const invoke = async (e: HttpEvent) => {
    const result = await route(e, { awsRequestId: 'l-1' } as Context);
    return { status: result.statusCode, body: JSON.parse(String(result.body)) };
  };

  it("acts as the IAM authorizer's caller", async () => {
    const answer = await invoke(event({ iam: { userArn: 'arn:aws:iam::1:user/ops' } }));
    expect(answer).toEqual({ status: 200, body: { who: 'arn:aws:iam::1:user/ops', operationID: 'dep_1' } });
  });

  it('answers 401 UNAUTHORIZED without an identity, before reading the body', async () => {
    const answer = await invoke(event(undefined, 'not json'));
    expect(answer).toMatchObject({ status: 401, body: { success: false, type: 'UNAUTHORIZED' } });
  });

  it('answers 400 BAD_REQUEST for a body off its schema', async () => {
    const answer = await invoke(event({ iam: { userArn: 'ops' } }, '{"operationID":""}'));
    expect(answer).toMatchObject({ status: 400, body: { type: 'BAD_REQUEST' } });
  });

  describe('its audit line', () => {
    // Spies observe the logger (CloudWatch has no local stand-in); the route runs for real.
    const lines = () => {
      const spies = {
        info: vi.spyOn(logger, 'info').mockImplementation(() => undefined),
        warn: vi.spyOn(logger, 'warn').mockImplementation(() => undefined),
        error: vi.spyOn(logger, 'error').mockImplementation(() => undefined),
      };
      return () =>
        Object.entries(spies).flatMap(([level, spy]) =>
          spy.mock.calls
            .filter(([message]) => String(message).startsWith('operator request'))
            .map(([message, line]) => ({ level, message, line })),
        );
    };
    afterEach(() => vi.restoreAllMocks());

    it('records who acted, the route and the status of a call that succeeds', async () => {
      const logged = lines();
      await invoke(event({ iam: { userArn: 'arn:aws:iam::1:user/ops' } }));
      expect(logged()).toEqual([
        {
          level: 'info',
          message: 'operator request',
          line: { who: 'arn:aws:iam::1:user/ops', path: '/v1/ops/deposits/get', status: 200 },
        },
      ]);
    });

    it.for([
      {
        label: 'without an identity',
        authorizer: undefined,
        body: '{}',
        who: 'unidentified',
        status: 401,
        type: 'UNAUTHORIZED',
      },
      {
        label: 'with a body off its schema',
        authorizer: { iam: { userArn: 'ops' } },
        body: '{"operationID":""}',
        who: 'ops',
        status: 400,
        type: 'BAD_REQUEST',
      },
    ])(
      'records a call refused $label, with its type, and never its body',
      async ({ authorizer, body, who, status, type }) => {
        const logged = lines();
        await invoke(event(authorizer, body));
        expect(logged()).toEqual([
          {
            level: 'warn',
            message: 'operator request refused',
            line: { who, path: '/v1/ops/deposits/get', status, type },
          },
        ]);
      },
    );

    it('records a call that failed', async () => {
      const logged = lines();
      const failing = operatorRoute(GetRequest, async () => {
        throw new Error('the table is gone');
      });
      const result = await failing(event({ iam: { userArn: 'ops' } }), { awsRequestId: 'l-2' } as Context);
      expect(result.statusCode).toBe(500);
      expect(logged()).toEqual([
        {
          level: 'error',
          message: 'operator request failed',
          line: { who: 'ops', path: '/v1/ops/deposits/get', status: 500, type: 'INTERNAL_ERROR' },
        },
      ]);
    });
  });
});
