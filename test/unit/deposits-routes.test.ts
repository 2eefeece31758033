/**
 * Whose token a deposits route takes for the user's connection: behind an authorizer (IAM or JWT, in
 * AWS) `Authorization` is the wallet backend's own identity and never reaches the provider; the
 * user's token comes in `X-Provider-Authorization`. Without an authorizer (locally) `Authorization`
 * is the spec's own header.
 */
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { DepositError, depositErrorTypes } from '#shared/deposits/errors';
import { depositErrorAnswers, envelopeOf, operatorErrorAnswers } from '#shared/middleware/api-errors';
import { depositRoute } from '#shared/middleware/deposit-route';
import type { HttpEvent } from '#shared/middleware/http';
import { OperatorError, operatorErrorTypes } from '#shared/operator/errors';

const taken: string[] = [];
const route = depositRoute(z.object({}), async ({ accessToken }) => {
  taken.push(accessToken);
  return {};
});

function event(headers: Record<string, string>, authorizer?: unknown): HttpEvent {
  return {
    version: '2.0',
    rawPath: '/v1/deposits/get',
    headers,
    requestContext: { requestId: 'r-1', http: { method: 'POST', path: '/v1/deposits/get' }, authorizer },
    isBase64Encoded: false,
    body: '{}',
  } as unknown as HttpEvent;
}

async function call(e: HttpEvent) {
  taken.length = 0;
  const result = await route(e, { awsRequestId: 'l-1' } as Context);
  return { status: result.statusCode, body: JSON.parse(String(result.body)), taken: [...taken] };
}

const jwt = { jwt: { claims: { sub: 'wallet-backend' }, scopes: ['deposits/write'] } };

describe("the user's provider token", () => {
  it('is Authorization without an authorizer (the local stack, the spec)', async () => {
    expect(await call(event({ authorization: 'Bearer user-token' }))).toMatchObject({
      status: 200,
      taken: ['user-token'],
    });
  });

  it("is never the backend's JWT behind an authorizer: 401, and nothing runs", async () => {
    const answer = await call(event({ authorization: 'Bearer backend.jwt.token' }, jwt));
    expect(answer).toMatchObject({
      status: 401,
      body: { type: 'UNAUTHORIZED', msg: 'X-Provider-Authorization: Bearer <access token> is required' },
      taken: [],
    });
  });

  it('is X-Provider-Authorization behind an authorizer', async () => {
    const headers = {
      authorization: 'Bearer backend.jwt.token',
      'x-provider-authorization': 'Bearer user-token',
    };
    expect(await call(event(headers, jwt))).toMatchObject({ status: 200, taken: ['user-token'] });
  });
});

describe('the refusals of the domains, over HTTP', () => {
  it('answers each type of the deposits and operator domains with the status its table gives', () => {
    const answered = [
      ...depositErrorTypes.map((type) => envelopeOf(new DepositError(type, 'm'))),
      ...operatorErrorTypes.map((type) => envelopeOf(new OperatorError(type, 'm'))),
    ].map((envelope) => [envelope?.type, envelope?.status]);

    expect(answered).toEqual([
      ...depositErrorTypes.map((type) => [type, depositErrorAnswers[type].status]),
      ...operatorErrorTypes.map((type) => [type, operatorErrorAnswers[type].status]),
    ]);
    expect(answered.filter(([, status]) => status === 404).map(([type]) => type)).toEqual([
      'DEPOSIT_NOT_FOUND',
      'SOURCE_NOT_FOUND',
    ]);
    expect(envelopeOf(new Error('anything else'))).toBeUndefined();
  });
});
