/**
 * Whose token a deposits route takes for the user's connection: behind an authorizer (IAM or JWT, in
 * AWS) `Authorization` is the wallet backend's own identity and never reaches the provider; the
 * user's token comes in `X-Provider-Authorization`. Without an authorizer (locally) `Authorization`
 * is the spec's own header.
 */
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { DepositError, depositErrorTypes } from '#shared/deposits/model/errors';
import { depositErrorAnswers, envelopeOf, operatorErrorAnswers } from '#shared/middleware/api-errors';
import { backendOf, depositRoute, ownerRoute } from '#shared/middleware/deposit-route';
import type { HttpEvent } from '#shared/middleware/http';
import { unmatched } from '#shared/middleware/not-found';
import { OperatorError, operatorErrorTypes } from '#shared/operator/errors';

const taken: string[] = [];
const route = depositRoute(z.object({}), async ({ accessToken }) => {
  taken.push(accessToken);
  return {};
});

function event(headers: Record<string, string>, authorizer?: unknown, body = '{}'): HttpEvent {
  return {
    version: '2.0',
    rawPath: '/v1/deposits/get',
    headers: { 'content-type': 'application/json', ...headers },
    requestContext: { requestId: 'r-1', http: { method: 'POST', path: '/v1/deposits/get' }, authorizer },
    isBase64Encoded: false,
    body,
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
      'DELIVERY_NOT_FOUND',
    ]);
    expect(envelopeOf(new Error('anything else'))).toBeUndefined();
  });
});

describe('errors at the door', () => {
  const strict = depositRoute(z.strictObject({ amount: z.number() }), async () => ({}));
  const answer = async (e: HttpEvent) => {
    const result = await strict(e, { awsRequestId: 'l-1' } as Context);
    return { status: result.statusCode, body: JSON.parse(String(result.body)), headers: result.headers };
  };
  const user = { authorization: 'Bearer user-token' };

  it.each([
    ['text/plain', { 'content-type': 'text/plain' }],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['no Content-Type', { 'content-type': '' }],
  ])('refuses a body sent as %s: 415 UNSUPPORTED_MEDIA_TYPE, saying what to send', async (_name, headers) => {
    const reply = await answer(event({ ...user, ...headers }, undefined, '{"amount":1}'));

    expect(reply.status).toBe(415);
    expect(reply.body).toMatchObject({ success: false, status: 'failed', type: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(reply.body.msg).toContain('Content-Type: application/json');
  });

  it('takes application/json with a charset', async () => {
    const reply = await answer(
      event({ ...user, 'content-type': 'application/json; charset=utf-8' }, undefined, '{"amount":1}'),
    );

    expect(reply.status).toBe(200);
  });

  it('refuses an unknown field, naming it in msg and details', async () => {
    const reply = await answer(event(user, undefined, '{"amount":1,"currency":"AED"}'));

    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      type: 'BAD_REQUEST',
      msg: 'Invalid request: currency: unknown field, not part of this request',
      details: ['currency: unknown field, not part of this request'],
    });
  });

  it("says what is wrong in msg, not the spec's fixed text", async () => {
    const illTyped = await answer(event(user, undefined, '{"amount":"1"}'));
    const notJson = await answer(event(user, undefined, '{"amount":'));

    expect(illTyped.body.msg).toMatch(/^Invalid request: amount: /);
    expect(illTyped.body.msg).not.toBe('Invalid JSON request');
    expect(notJson.body).toMatchObject({ type: 'BAD_REQUEST', msg: 'The body is not valid JSON' });
  });

  it.each([
    ['without Bearer', 'user-token', "the 'Bearer ' before the token is missing"],
    ['with another scheme', 'Basic dXNlcjpwYXNz', 'its scheme is Basic, not Bearer'],
  ])('refuses a token %s with a hint: 401', async (_name, authorization, hint) => {
    const reply = await answer(event({ authorization }, undefined, '{"amount":1}'));

    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ type: 'UNAUTHORIZED' });
    expect(reply.body.msg).toBe(`Authorization must be 'Bearer <accessToken>': ${hint}`);
  });
});

describe('a route that matched nothing', () => {
  const routes = [
    { method: 'POST', path: '/v1/deposits/get' },
    { method: 'GET', path: '/health' },
  ];

  it('answers a known path with another method 405, naming the method it takes in msg and Allow', () => {
    const refusal = unmatched(routes, 'GET', '/v1/deposits/get');

    expect(refusal).toMatchObject({
      type: 'METHOD_NOT_ALLOWED',
      status: 405,
      message: 'GET /v1/deposits/get: this route takes POST, not GET',
      headers: { allow: 'POST' },
    });
  });

  it.each([
    ['a trailing slash', '/v1/deposits/get/', 'without the trailing slash'],
    ['other letters', '/v1/Deposits/Get', 'in these letters'],
  ])('answers a path with %s 404, naming the route it likely meant', (_name, path, how) => {
    const refusal = unmatched(routes, 'POST', path);

    expect(refusal).toMatchObject({ type: 'NOT_FOUND', status: 404 });
    expect(refusal.message).toBe(`No route for POST ${path}: did you mean POST /v1/deposits/get (${how})?`);
  });

  it('answers anything else 404 naming what was asked', () => {
    expect(unmatched(routes, 'POST', '/v1/refunds').message).toBe('No route for POST /v1/refunds');
  });
});

describe('who calls: the backend', () => {
  it.each([
    [
      'an IAM user',
      { iam: { userArn: 'arn:aws:iam::111111111111:user/wallet' } },
      'iam:arn:aws:iam::111111111111:user/wallet',
    ],
    [
      "an assumed role, whatever its session's name",
      { iam: { userArn: 'arn:aws:sts::111111111111:assumed-role/wallet-backend/i-0abc123' } },
      'iam:arn:aws:sts::111111111111:assumed-role/wallet-backend',
    ],
    [
      "a JWT's subject and client",
      { jwt: { claims: { sub: 'svc-wallet', client_id: 'abc' }, scopes: [] } },
      'jwt:svc-wallet|abc',
    ],
    ["a JWT's subject and azp", { jwt: { claims: { sub: 'svc', azp: 'web' }, scopes: [] } }, 'jwt:svc|web'],
    ["the local gateway's caller", { lambda: { localCaller: 'second-backend' } }, 'local:second-backend'],
    ['nobody named', undefined, undefined],
  ])('is %s', (_name, authorizer, expected) => {
    expect(backendOf(event({}, authorizer))).toBe(expected);
  });

  const seen: unknown[] = [];
  const owner = ownerRoute(z.object({}), async ({ caller }) => {
    seen.push(caller);
    return {};
  });
  const callOwner = async (e: HttpEvent) => {
    seen.length = 0;
    const result = await owner(e, { awsRequestId: 'l-1' } as Context);
    return { status: result.statusCode, body: JSON.parse(String(result.body)), seen: [...seen] };
  };

  it('lets a backend read by its own identity, no token: the local caller takes Authorization as the token', async () => {
    const local = { lambda: { localCaller: 'local-backend' } };

    expect(await callOwner(event({}, local))).toMatchObject({
      status: 200,
      seen: [{ backend: 'local:local-backend', accessToken: undefined }],
    });
    expect(await callOwner(event({ authorization: 'Bearer user-token' }, local))).toMatchObject({
      seen: [{ backend: 'local:local-backend', accessToken: 'user-token' }],
    });
  });

  it("never takes the backend's own Authorization for a token behind IAM or a JWT", async () => {
    const answer = await callOwner(event({ authorization: 'Bearer backend.jwt.token' }, jwt));

    expect(answer).toMatchObject({
      status: 200,
      seen: [{ backend: 'jwt:wallet-backend|', accessToken: undefined }],
    });
  });

  it('answers nobody (no backend, no token) 401', async () => {
    expect(await callOwner(event({}))).toMatchObject({
      status: 401,
      body: { type: 'UNAUTHORIZED' },
      seen: [],
    });
  });
});
