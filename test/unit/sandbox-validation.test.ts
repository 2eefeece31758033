/**
 * Request validation: malformed and ill-typed bodies, and a body without its content type, on every
 * provider endpoint. Amounts, routes and the fuzz: the `sandbox-validation-*` files beside this one
 * (the deposits API's fuzz, and one route's over real HTTP, are end to end:
 * test/e2e/validation.test.ts, test/e2e/sandbox-routes.test.ts). In process: the sandbox's routes
 * composed as their handlers are, over its in-memory fake store (the sanctioned stand-in for its
 * table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  appSecret,
  createUser,
  post,
  rawRequest,
  type TestUser,
  walletInline,
} from '../support/in-process-sandbox.ts';
import { badRequestNaming, bearer, endpoints, secretsOf } from '../support/sandbox-validation.ts';

describe('malformed bodies answer 400 BAD_REQUEST on every provider endpoint', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser('SANDBOX_BENEFICIARY');
  });

  it.each(endpoints)('$path', async ({ path, valid, missing, illTyped }) => {
    // prepare
    const { [missing]: _dropped, ...withoutField }: Record<string, unknown> = {
      ...secretsOf(user),
      ...valid(user),
    };
    const cases: { name: string; body: string; field: string }[] = [
      { name: 'not JSON', body: '{nope', field: 'body' },
      { name: 'empty body', body: '', field: 'body' },
      { name: 'JSON array', body: JSON.stringify([secretsOf(user)]), field: 'body' },
      { name: 'JSON null', body: 'null', field: 'body' },
      { name: `missing ${missing}`, body: JSON.stringify(withoutField), field: missing },
      {
        name: 'missing appSecret',
        body: JSON.stringify({ ...valid(user), userSecret: user.userSecret }),
        field: 'appSecret',
      },
      ...illTyped.map(({ field, value }) => ({
        name: `${field}: ${JSON.stringify(value)}`,
        body: JSON.stringify({ ...secretsOf(user), ...valid(user), [field]: value }),
        field,
      })),
    ];

    // act
    const replies = await Promise.all(
      cases.map(async ({ name, body, field }) => ({
        name,
        field,
        reply: await post(path, body, bearer(user)),
      })),
    );
    const before = await user.state();
    // The well-formed body is not refused as a bad request: each case fails only by its defect.
    const control = await user.call(path, valid(user));

    // assess
    for (const { name, field, reply } of replies) {
      expect({ name, status: reply.status, body: reply.body }).toEqual({
        name,
        status: 400,
        body: badRequestNaming(field),
      });
    }
    expect(before.transfers).toEqual([]);
    expect(control.body.type).not.toBe('BAD_REQUEST');
    expect(control.status).not.toBe(400);
  });
});

describe('a body without Content-Type: application/json answers 400 BAD_REQUEST naming the header', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser('SANDBOX_BENEFICIARY');
  });

  /** A POST of `body` with no Content-Type but `contentType`, if given. */
  async function sendAs(path: string, body: string, headers: Record<string, string>, contentType?: string) {
    const response = await rawRequest('POST', path, body, {
      ...headers,
      ...(contentType === undefined ? {} : { 'content-type': contentType }),
    });
    return {
      contentType,
      status: response.status,
      body: JSON.parse(response.text) as Record<string, unknown>,
    };
  }

  /** Every route of the sandbox that reads a body, with a well-formed one. */
  const routes: { path: string; body: (user: TestUser) => Record<string, unknown> }[] = [
    ...endpoints.map(({ path, valid }) => ({
      path,
      body: (user: TestUser) => ({ ...secretsOf(user), ...valid(user) }),
    })),
    {
      path: '/v1/auth/ExchangeToken',
      body: () => ({ appSecret, accessCode: 'ac_unknown', connectionID: 'conn_unknown' }),
    },
    { path: '/sandbox/users', body: () => ({ appSecret, bankId: 'SANDBOX_BENEFICIARY' }) },
    { path: '/sandbox/users/get', body: (user) => ({ appSecret, connectionID: user.connectionID }) },
    { path: '/sandbox/faults', body: (user) => ({ appSecret, connectionID: user.connectionID, faults: [] }) },
  ];

  it.each(routes)('$path', async ({ path, body }) => {
    // prepare
    const sent = JSON.stringify(body(user));
    const refusedTypes = [undefined, 'text/plain', 'application/x-www-form-urlencoded', 'application/jsonp'];
    const acceptedTypes = ['application/json; charset=utf-8', 'Application/JSON'];

    // act
    const refused = await Promise.all(refusedTypes.map((type) => sendAs(path, sent, bearer(user), type)));
    const accepted = [];
    for (const type of acceptedTypes) accepted.push(await sendAs(path, sent, bearer(user), type));

    // assess
    for (const reply of refused) {
      expect(reply).toEqual({
        contentType: reply.contentType,
        status: 400,
        body: badRequestNaming('Content-Type header'),
      });
    }
    for (const reply of accepted) expect(reply.body.type, reply.contentType).not.toBe('BAD_REQUEST');
  });

  it('a transfer sent without it moves nothing', async () => {
    // prepare
    const direct = await createUser('SANDBOX_NO_BENEFICIARY');
    const transfer = { ...secretsOf(direct), amount: 10, senderID: direct.accountId, action: 'deposit' };

    // act
    const reply = await sendAs(
      '/v1/payment/transfer/create',
      JSON.stringify({ ...transfer, beneficiary: walletInline() }),
      bearer(direct),
    );
    const after = await direct.state();

    // assess
    expect(reply.status).toBe(400);
    expect(after.transfers).toEqual([]);
    expect(after.accounts[0].balance).toBe(direct.balance);
  });
});
