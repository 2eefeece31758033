/**
 * The deposits API's ids, texts, arrays and bearer token have a maximum, checked before anything is
 * read or stored: one character over it answers 400 BAD_REQUEST naming the field, never a 5xx, and
 * nothing is written (the sandbox's routes, the same maxima: test/unit/sandbox-limits.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inputLimits as limits } from '#shared/provider/interface/limits';
import { expectDocumented } from '../support/contract.ts';
import { depositsUrl, startDeposit } from '../support/deposits.ts';
import { appSecret, createUser } from '../support/sandbox.ts';

const over = (limit: number) => 'x'.repeat(limit + 1);
const inputs = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ id: 'otp', index, query: 'q', answer: '1' }));

/**
 * The exact BAD_REQUEST envelope, its details naming `field`; the sandbox's `msg` is the spec's fixed
 * text, the deposits API's says what is wrong.
 */
function badRequestNaming(field: string, api: 'sandbox' | 'deposits' = 'sandbox') {
  const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return expect.objectContaining({
    success: false,
    status: 'failed',
    type: 'BAD_REQUEST',
    msg: api === 'sandbox' ? 'Invalid JSON request' : expect.stringContaining(`${field}: `),
    details: expect.arrayContaining([expect.stringMatching(new RegExp(`^${escaped}: `))]),
  });
}

/** `body` with `value` put at `path` (dots into objects). */
function withValue(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.');
  if (head === undefined) return body;
  if (rest.length === 0) return { ...body, [head]: value };
  const inner = body[head];
  if (Array.isArray(inner)) {
    const index = Number(rest[0]);
    const copy = [...inner];
    copy[index] = withValue(copy[index] as Record<string, unknown>, rest.slice(1).join('.'), value);
    return { ...body, [head]: copy };
  }
  return { ...body, [head]: withValue((inner ?? {}) as Record<string, unknown>, rest.join('.'), value) };
}

describe('deposits API: the same maxima, before anything is stored', () => {
  async function depositCall(path: string, body: unknown, headers: Record<string, string>) {
    const response = await fetch(`${depositsUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const answer = JSON.parse(await response.text()) as Record<string, unknown>;
    expectDocumented('deposits', 'POST', path, response.status, answer);
    return { status: response.status, body: answer };
  }

  it.each([
    { field: 'appSecret', value: over(limits.secret) },
    { field: 'userSecret', value: over(limits.secret) },
    { field: 'senderID', value: over(limits.id) },
    { field: 'walletAccountID', value: over(limits.id) },
    { field: 'userInputs', value: inputs(limits.userInputs + 1) },
    { field: 'userInputs.0.answer', value: over(limits.answer) },
  ])('POST /v1/deposits/create: $field', async ({ field, value }) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const key = randomUUID();
    const body = withValue(
      {
        appSecret,
        userSecret: user.userSecret,
        amount: 10,
        senderID: user.accountId,
        userInputs: inputs(1),
      },
      field,
      value,
    );

    // act
    const reply = await depositCall('/v1/deposits/create', body, {
      authorization: `Bearer ${user.accessToken}`,
      'idempotency-key': key,
    });
    // The same key is still free: nothing was stored under it.
    const afterwards = await startDeposit(user, { amount: 10 }, key);

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(badRequestNaming(field, 'deposits'));
    expect(afterwards.status).toBe(202);
  });

  it.each([
    ['operationID', { operationID: over(limits.id) }, {}],
    ['appSecret', { appSecret: over(limits.secret) }, {}],
    ['Authorization header', {}, { authorization: `Bearer ${over(limits.bearerToken)}` }],
  ])('POST /v1/deposits/get: %s', async (field, fields, headers) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const reply = await depositCall(
      '/v1/deposits/get',
      { appSecret, userSecret: user.userSecret, operationID: 'dep_x', ...fields },
      { authorization: `Bearer ${user.accessToken}`, ...headers },
    );

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(badRequestNaming(field, 'deposits'));
  });

  it('POST /v1/deposits/create: a bearer token over its maximum', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const reply = await depositCall(
      '/v1/deposits/create',
      { appSecret, userSecret: user.userSecret, amount: 10, senderID: user.accountId },
      { authorization: `Bearer ${over(limits.bearerToken)}`, 'idempotency-key': randomUUID() },
    );

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(badRequestNaming('Authorization header', 'deposits'));
  });
});
