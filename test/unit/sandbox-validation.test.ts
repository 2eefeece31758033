/**
 * Request validation: malformed and ill-typed bodies, amounts with too many decimals for their
 * currency, unknown routes, oversized bodies, bad fault headers, and a small fuzz of every route that
 * must never make the sandbox answer a 5xx or anything but JSON (the deposits API's fuzz, and one
 * route's over real HTTP, are end to end: test/e2e/validation.test.ts, test/e2e/sandbox-routes.test.ts).
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxApi } from '#infra/topology';
import { assessReplies, oddBodies, oddHeaders } from '../support/fuzz.ts';
import {
  appSecret,
  createUser,
  eventually,
  failed,
  post,
  rawRequest,
  request,
  type TestUser,
  walletBeneficiary,
  walletInline,
} from '../support/in-process-sandbox.ts';

/** The exact BAD_REQUEST envelope, with a `details` entry naming `field` (`body` for the whole body). */
function badRequestNaming(field: string) {
  const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return {
    success: false,
    status: 'failed',
    type: 'BAD_REQUEST',
    msg: 'Invalid JSON request',
    requestId: expect.any(String),
    details: expect.arrayContaining([expect.stringMatching(new RegExp(`^${escaped}(:| is )`))]),
  };
}

/** Any method, any body (GET included), any headers; the raw status and text of the answer. */
async function raw(
  method: string,
  path: string,
  body: string | undefined,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const { status, text } = await rawRequest(method, path, body, {
    'content-type': 'application/json',
    ...headers,
  });
  return { status, text };
}

const bearer = (user: TestUser) => ({ authorization: `Bearer ${user.accessToken}` });
const secretsOf = (user: TestUser) => ({ appSecret, userSecret: user.userSecret });

interface EndpointCase {
  path: string;
  valid: (user: TestUser) => Record<string, unknown>;
  missing: string;
  illTyped: { field: string; value: unknown }[];
}

const endpoints: EndpointCase[] = [
  {
    path: '/v1/metadata/accounts/get',
    valid: () => ({ sync: true }),
    missing: 'sync',
    illTyped: [{ field: 'sync', value: 'yes' }],
  },
  {
    path: '/v1/payment/beneficiaries/get',
    valid: () => ({ sync: true }),
    missing: 'sync',
    illTyped: [{ field: 'sync', value: 'yes' }],
  },
  {
    path: '/v1/payment/beneficiaries/create',
    valid: () => ({ sync: true, ...walletBeneficiary() }),
    missing: 'iban',
    illTyped: [
      { field: 'sync', value: 'yes' },
      { field: 'name', value: 42 },
      { field: 'address', value: 'Wallet Street 1' },
    ],
  },
  {
    path: '/v1/payment/transfer/create',
    valid: (user) => ({ sync: true, amount: 10, senderID: user.accountId, receiverID: 'ben_unknown' }),
    missing: 'senderID',
    illTyped: [
      { field: 'amount', value: '10' },
      { field: 'sync', value: 'yes' },
      { field: 'receiverID', value: 7 },
    ],
  },
  {
    path: '/v1/payment/transfer/autoflow',
    valid: (user) => ({
      amount: 10,
      senderID: user.accountId,
      action: 'deposit',
      beneficiary: walletInline(),
    }),
    missing: 'action',
    illTyped: [
      { field: 'amount', value: '10' },
      { field: 'beneficiary', value: 'Acme Wallet LLC' },
    ],
  },
  {
    path: '/v2/data/balance/get',
    valid: (user) => ({ sync: true, cardID: user.cardId }),
    missing: 'cardID',
    illTyped: [
      { field: 'cardID', value: 42 },
      { field: 'sync', value: 'yes' },
    ],
  },
  {
    path: '/v2/operation/get',
    valid: () => ({ operationID: 'op_unknown' }),
    missing: 'operationID',
    illTyped: [{ field: 'operationID', value: 42 }],
  },
  {
    path: '/v1/operation/get',
    valid: () => ({ operationID: 'op_unknown' }),
    missing: 'operationID',
    illTyped: [{ field: 'operationID', value: 42 }],
  },
];

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

describe('amounts carry no more decimals than their currency has', () => {
  async function withBeneficiary(bankId: string) {
    const user = await createUser(bankId);
    const created = await user.call('/v1/payment/beneficiaries/create', {
      sync: true,
      ...walletBeneficiary(),
    });
    if (created.body.status !== 'done') throw new Error(`no beneficiary: ${JSON.stringify(created.body)}`);
    // The list gives the beneficiary's id (the creation's reference is a receipt number).
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });
    const transfer = (amount: unknown) =>
      user.call('/v1/payment/transfer/create', {
        sync: true,
        amount,
        senderID: user.accountId,
        receiverID: listed.body.beneficiaries[0].id,
      });
    return { user, transfer };
  }

  it('AED (2 decimals): 10.123 is a bad request and debits nothing; 10.12 is accepted', async () => {
    // prepare
    const { user, transfer } = await withBeneficiary('SANDBOX_BENEFICIARY');

    // act
    const tooPrecise = await transfer(10.123);
    const afterRefusal = await user.state();
    const exact = await transfer(10.12);
    const afterTransfer = await user.state();

    // assess
    expect(tooPrecise.status).toBe(400);
    expect(tooPrecise.body).toEqual(failed('BAD_REQUEST'));
    expect(tooPrecise.body.details).toEqual([expect.stringMatching(/^amount: .*2 decimals/)]);
    expect(afterRefusal.accounts[0].balance).toBe(100_000);
    expect(afterRefusal.transfers).toEqual([]);
    expect(exact.status).toBe(200);
    expect(exact.body).toMatchObject({ success: true, status: 'done' });
    expect(afterTransfer.accounts[0].balance).toBe(99_989.88);
  });

  it('KWD (3 decimals): 1.2345 is a bad request and debits nothing; 1.234 is accepted', async () => {
    // prepare
    const { user, transfer } = await withBeneficiary('SANDBOX_KWD');

    // act
    const tooPrecise = await transfer(1.2345);
    const afterRefusal = await user.state();
    const exact = await transfer(1.234);
    const afterTransfer = await user.state();

    // assess
    expect(tooPrecise.status).toBe(400);
    expect(tooPrecise.body).toEqual(failed('BAD_REQUEST'));
    expect(tooPrecise.body.details).toEqual([expect.stringMatching(/^amount: .*3 decimals/)]);
    expect(afterRefusal.accounts[0]).toMatchObject({ currency: 'KWD', balance: 1_000 });
    expect(afterRefusal.transfers).toEqual([]);
    expect(exact.status).toBe(200);
    expect(exact.body).toMatchObject({ success: true, status: 'done' });
    expect(afterTransfer.accounts[0].balance).toBe(998.766);
    expect(afterTransfer.transfers).toEqual([expect.objectContaining({ amount: 1.234, currency: 'KWD' })]);
  });

  it('AED autoflow (no beneficiary bank): 10.123 is a bad request and debits nothing', async () => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');

    // act
    const reply = await user.call('/v1/payment/transfer/autoflow', {
      amount: 10.123,
      senderID: user.accountId,
      action: 'deposit',
      beneficiary: walletInline(),
    });
    const after = await user.state();

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(failed('BAD_REQUEST'));
    expect(after.accounts[0].balance).toBe(100_000);
    expect(after.transfers).toEqual([]);
  });

  it.each([0, -5, -0.01])('amount %s is a bad request naming amount', async (amount) => {
    // prepare
    const { user, transfer } = await withBeneficiary('SANDBOX_BENEFICIARY');

    // act
    const reply = await transfer(amount);
    const after = await user.state();

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(badRequestNaming('amount'));
    expect(after.accounts[0].balance).toBe(100_000);
    expect(after.transfers).toEqual([]);
  });
});

describe('routes that do not exist, oversized bodies and bad fault headers', () => {
  it.each([
    ['GET', '/nope'],
    ['POST', '/v1/nope'],
    ['GET', '/v1/metadata/accounts/get'],
    ['GET', '/v1/payment/transfer/create'],
    ['POST', '/sandbox/banks'],
    ['DELETE', '/sandbox/users'],
  ])('%s %s answers 404 NOT_FOUND', async (method, path) => {
    // act
    const reply = await request(method, path, method === 'GET' ? undefined : {});

    // assess
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({
      success: false,
      status: 'failed',
      requestId: expect.any(String),
      type: 'NOT_FOUND',
      msg: expect.any(String),
    });
    expect(reply.body.msg).toContain(path);
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a body over 1 MiB, and reads a body of exactly 1 MiB', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const envelope = JSON.stringify({ ...secretsOf(user), sync: true, padding: '' });
    const padded = (bytes: number) =>
      JSON.stringify({ ...secretsOf(user), sync: true, padding: 'x'.repeat(bytes - envelope.length) });
    const exactlyLimit = padded(1024 * 1024);
    const overLimit = padded(1024 * 1024 + 1);

    // act
    const over = await post('/v1/metadata/accounts/get', overLimit, bearer(user));
    const atLimit = await post('/v1/metadata/accounts/get', exactlyLimit, bearer(user));

    // assess
    expect(Buffer.byteLength(overLimit)).toBe(1024 * 1024 + 1);
    expect(Buffer.byteLength(exactlyLimit)).toBe(1024 * 1024);
    expect(over.status).toBe(413);
    expect(over.body).toEqual({
      success: false,
      status: 'failed',
      requestId: expect.any(String),
      type: 'PAYLOAD_TOO_LARGE',
      msg: 'Request body is too large',
    });
    expect(atLimit.status).toBe(200);
    expect(atLimit.body).toMatchObject({ success: true, status: 'done' });
  });

  it.each([
    ['x-sandbox-fault', 'explode', 'outcome'],
    ['x-sandbox-fault-status', '418', 'status'],
    ['x-sandbox-fault-phase', 'during', 'phase'],
    ['x-sandbox-latency-ms', '-5', 'latencyMs'],
    ['x-sandbox-latency-ms', 'soon', 'latencyMs'],
    ['x-sandbox-timeout-ms', '999999999', 'timeoutMs'],
  ])('%s: %s answers 400 BAD_REQUEST and nothing happens', async (header, value, field) => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');
    const transfer = {
      amount: 10,
      senderID: user.accountId,
      action: 'deposit',
      beneficiary: walletInline(),
    };

    // act
    const provider = await user.call('/v1/payment/transfer/autoflow', transfer, { [header]: value });
    const publicRoute = await request('GET', '/sandbox/banks', undefined, { [header]: value });
    const after = await user.state();

    // assess
    const expected = {
      success: false,
      status: 'failed',
      type: 'BAD_REQUEST',
      msg: 'Invalid JSON request',
      requestId: expect.any(String),
      details: [expect.stringContaining(`X-Sandbox header ${field}`)],
    };
    expect(provider.status).toBe(400);
    expect(provider.body).toEqual(expected);
    expect(publicRoute.status).toBe(400);
    expect(publicRoute.body).toEqual(expected);
    expect(after.accounts[0].balance).toBe(100_000);
    expect(after.transfers).toEqual([]);
  });
});

describe('fuzz: odd and oversized bodies and headers never make any route of the sandbox answer 5xx or non-JSON', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser('SANDBOX_BENEFICIARY');
  });

  it.each(sandboxApi.routes)('sandbox: $method $path', async ({ method, path }) => {
    // prepare
    const sends = [
      ...oddBodies({}).map((body) => ({ body, headers: {} })),
      ...oddBodies(secretsOf(user)).map((body) => ({ body, headers: bearer(user) })),
      ...oddHeaders(user).map((headers) => ({
        body: JSON.stringify({ ...secretsOf(user), sync: true }),
        headers,
      })),
    ];

    // act
    const replies = await Promise.all(sends.map(({ body, headers }) => raw(method, path, body, headers)));
    const health = await request('GET', '/health');
    // An odd body may have started a `sync: false` operation that holds the connection for a moment.
    const stillServing = await eventually(async () => {
      const reply = await user.call('/v1/metadata/accounts/get', { sync: true });
      return reply.status === 409 ? undefined : reply;
    });

    // assess
    assessReplies(`${method} ${path}`, sends, replies);
    expect(health.status).toBe(200);
    expect(stillServing.status).toBe(200);
    expect(stillServing.body).toMatchObject({ success: true, status: 'done' });
  });
});
