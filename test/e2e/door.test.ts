/**
 * Errors at the door, over real HTTP against the local stack: the deposits and
 * operator APIs refuse a body that is not JSON (415) and a field they do not know (400, named), say
 * in `msg` what is wrong, and answer a request in the wrong shape (a token without `Bearer `, a
 * wrong method, a trailing slash) with a hint. Nothing of a refused request is started.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectDocumented } from '../support/contract.ts';
import { depositsUrl } from '../support/deposits.ts';
import { operatorToken, operatorUrl } from '../support/operator.ts';
import { appSecret, createUser, type TestUser } from '../support/sandbox.ts';

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function send(
  api: 'deposits' | 'operator',
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  const base = api === 'deposits' ? depositsUrl : operatorUrl;
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const answer = JSON.parse(await response.text()) as Record<string, unknown>;
  expectDocumented(api, method, path, response.status, answer);
  return { status: response.status, headers: response.headers, body: answer };
}

const json = { 'content-type': 'application/json' };
const asOperator = { authorization: `Bearer ${operatorToken}` };

function createBody(user: TestUser, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    appSecret,
    userSecret: user.userSecret,
    amount: 10,
    senderID: user.accountId,
    ...extra,
  });
}

function createHeaders(user: TestUser, headers: Record<string, string> = json) {
  return { authorization: `Bearer ${user.accessToken}`, 'idempotency-key': randomUUID(), ...headers };
}

describe('the deposits API refuses at the door', () => {
  it.each([
    ['text/plain', { 'content-type': 'text/plain' }],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['no Content-Type', {}],
  ])('a create sent as %s: 415 UNSUPPORTED_MEDIA_TYPE, and nothing starts', async (_name, type) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const reply = await send(
      'deposits',
      'POST',
      '/v1/deposits/create',
      createHeaders(user, type),
      createBody(user),
    );

    // assess
    expect(reply.status).toBe(415);
    expect(reply.body).toMatchObject({
      success: false,
      status: 'failed',
      type: 'UNSUPPORTED_MEDIA_TYPE',
      msg: expect.stringContaining('Content-Type: application/json'),
      requestId: expect.any(String),
    });
    expect((await user.state()).transfers).toEqual([]);
  });

  it('an unknown field (currency): 400 naming it, where it was silently dropped before', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const reply = await send(
      'deposits',
      'POST',
      '/v1/deposits/create',
      createHeaders(user),
      createBody(user, { currency: 'AED' }),
    );

    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      type: 'BAD_REQUEST',
      msg: 'Invalid request: currency: unknown field, not part of this request',
      details: ['currency: unknown field, not part of this request'],
    });
  });

  it('an ill-typed field: msg says which and how', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const reply = await send(
      'deposits',
      'POST',
      '/v1/deposits/create',
      createHeaders(user),
      createBody(user, { amount: '10' }),
    );

    expect(reply.status).toBe(400);
    expect(reply.body.msg).toMatch(/^Invalid request: amount: .*number/);
  });

  it("a token without 'Bearer ': 401 saying so", async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const reply = await send(
      'deposits',
      'POST',
      '/v1/deposits/create',
      { ...createHeaders(user), authorization: user.accessToken },
      createBody(user),
    );

    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({
      type: 'UNAUTHORIZED',
      msg: "Authorization must be 'Bearer <accessToken>': the 'Bearer ' before the token is missing",
    });
  });

  it('a wrong method: 405 naming the one it takes, in msg and Allow', async () => {
    const reply = await send('deposits', 'GET', '/v1/deposits/create', {});

    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('POST');
    expect(reply.body).toMatchObject({
      type: 'METHOD_NOT_ALLOWED',
      msg: 'GET /v1/deposits/create: this route takes POST, not GET',
    });
  });

  it('a trailing slash: 404 naming the route without it', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const reply = await send(
      'deposits',
      'POST',
      '/v1/deposits/create/',
      createHeaders(user),
      createBody(user),
    );

    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({
      type: 'NOT_FOUND',
      msg: 'No route for POST /v1/deposits/create/: did you mean POST /v1/deposits/create (without the trailing slash)?',
    });
    expect((await user.state()).transfers).toEqual([]);
  });
});

describe('the operator API refuses at the door', () => {
  it('a body that is not JSON: 415', async () => {
    const reply = await send(
      'operator',
      'POST',
      '/v1/ops/deposits/get',
      { ...asOperator, 'content-type': 'text/plain' },
      JSON.stringify({ operationID: 'dep_x' }),
    );

    expect(reply.status).toBe(415);
    expect(reply.body).toMatchObject({ type: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('an unknown field: 400 naming it', async () => {
    const reply = await send(
      'operator',
      'POST',
      '/v1/ops/deposits/list',
      { ...asOperator, ...json },
      JSON.stringify({ status: 'done', state: 'done' }),
    );

    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      type: 'BAD_REQUEST',
      details: ['state: unknown field, not part of this request'],
    });
  });

  it('a wrong method: 405', async () => {
    const reply = await send('operator', 'GET', '/v1/ops/deposits/list', asOperator);

    expect(reply.status).toBe(405);
    expect(reply.body).toMatchObject({ type: 'METHOD_NOT_ALLOWED' });
  });
});
