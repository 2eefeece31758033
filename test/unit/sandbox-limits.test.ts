/**
 * Every id and text field, and every array, on every route of both APIs has a maximum, checked before
 * anything is read or stored: one character over it answers 400 BAD_REQUEST naming the field, never a
 * 5xx, and nothing is written. Bearer tokens too. Fields at their maximum are accepted, and items stay
 * far from DynamoDB's limits (docs/sandbox.md's "Limits" table is `inputLimits`). The sandbox's routes;
 * the deposits API's are end to end (test/e2e/limits.test.ts).
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { inputLimits as limits } from '#shared/provider/interface/limits';
import {
  appSecret,
  createUser,
  failed,
  post,
  stateOf,
  type TestUser,
  walletBeneficiary,
  walletInline,
} from '../support/in-process-sandbox.ts';

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

/** A field set to a value over its maximum: `path` is where it goes (dots into objects). */
interface Oversized {
  field: string;
  value: unknown;
}

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

const secrets: Oversized[] = [
  { field: 'appSecret', value: over(limits.secret) },
  { field: 'userSecret', value: over(limits.secret) },
];
const answers = (idField: string): Oversized[] => [
  { field: idField, value: over(limits.id) },
  { field: 'userInputs', value: inputs(limits.userInputs + 1) },
  { field: 'userInputs.0.answer', value: over(limits.answer) },
  { field: 'userInputs.0.id', value: over(limits.inputId) },
  { field: 'userInputs.0.query', value: over(limits.query) },
];
const inlineBeneficiary: Oversized[] = [
  { field: 'beneficiary.name', value: over(limits.text) },
  { field: 'beneficiary.iban', value: over(limits.iban) },
  { field: 'beneficiary.swiftCode', value: over(limits.code) },
  { field: 'beneficiary.accountNumber', value: over(limits.accountNumber) },
  { field: 'beneficiary.branchAddress', value: over(limits.text) },
  { field: 'beneficiary.address.line1', value: over(limits.text) },
];

interface ProviderRoute {
  path: string;
  body: (user: TestUser) => Record<string, unknown>;
  oversized: Oversized[];
}

const providerRoutes: ProviderRoute[] = [
  {
    path: '/v1/metadata/accounts/get',
    body: () => ({ sync: true }),
    oversized: [...secrets, ...answers('jobID')],
  },
  {
    path: '/v1/payment/beneficiaries/get',
    body: () => ({ sync: true }),
    oversized: [...secrets, ...answers('jobID')],
  },
  {
    path: '/v1/payment/beneficiaries/create',
    body: () => ({ sync: true, ...walletBeneficiary() }),
    oversized: [
      ...secrets,
      ...answers('jobID'),
      ...['name', 'bankName', 'branchName', 'branchAddress', 'country', 'type'].map((field) => ({
        field,
        value: over(limits.text),
      })),
      { field: 'iban', value: over(limits.iban) },
      { field: 'accountNumber', value: over(limits.accountNumber) },
      { field: 'swiftCode', value: over(limits.code) },
      { field: 'sortCode', value: over(limits.code) },
      { field: 'address.line2', value: over(limits.text) },
    ],
  },
  {
    path: '/v1/payment/transfer/create',
    body: (user) => ({ sync: true, amount: 10, senderID: user.accountId, receiverID: 'ben_unknown' }),
    oversized: [
      ...secrets,
      ...answers('operationID'),
      { field: 'senderID', value: over(limits.id) },
      { field: 'receiverID', value: over(limits.id) },
      ...inlineBeneficiary,
    ],
  },
  {
    path: '/v1/payment/transfer/autoflow',
    body: (user) => ({
      amount: 10,
      senderID: user.accountId,
      action: 'deposit',
      beneficiary: walletInline(),
    }),
    oversized: [
      ...secrets,
      ...answers('operationID'),
      { field: 'senderID', value: over(limits.id) },
      { field: 'action', value: over(limits.action) },
      ...inlineBeneficiary,
    ],
  },
  {
    path: '/v2/data/balance/get',
    body: (user) => ({ sync: true, cardID: user.cardId }),
    oversized: [...secrets, ...answers('operationID'), { field: 'cardID', value: over(limits.id) }],
  },
  {
    path: '/v1/operation/get',
    body: () => ({ operationID: 'op_unknown' }),
    oversized: [...secrets, { field: 'operationID', value: over(limits.id) }],
  },
];

describe('provider routes: one character over a maximum is BAD_REQUEST naming the field, nothing stored', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser('SANDBOX_BENEFICIARY');
  });

  it.each(providerRoutes)('$path', async ({ path, body, oversized }) => {
    // act
    const replies = await Promise.all(
      oversized.map(async ({ field, value }) => ({
        field,
        reply: await post(
          path,
          withValue(
            {
              appSecret,
              userSecret: user.userSecret,
              ...body(user),
              ...(field.startsWith('userInputs.') ? { userInputs: inputs(1) } : {}),
            },
            field,
            value,
          ),
          { authorization: `Bearer ${user.accessToken}` },
        ),
      })),
    );
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });

    // assess
    for (const { field, reply } of replies) {
      expect({ field, status: reply.status, body: reply.body }).toEqual({
        field,
        status: 400,
        body: badRequestNaming(field),
      });
    }
    expect((await stateOf(user)).transfers).toEqual([]);
    expect(listed.body.beneficiaries).toEqual([]);
  });

  it('a bearer token over its maximum is UNAUTHORIZED, as any token the provider does not know', async () => {
    // act
    const reply = await post(
      '/v1/metadata/accounts/get',
      { appSecret, userSecret: user.userSecret, sync: true },
      { authorization: `Bearer ${over(limits.bearerToken)}` },
    );

    // assess
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({
      success: false,
      status: 'failed',
      type: 'UNAUTHORIZED',
      msg: 'Invalid access token',
      requestId: expect.any(String),
    });
  });

  it('a token naming a connection id longer than any issued is UNAUTHORIZED, not a refused key (5xx)', async () => {
    // act: 1,100 two-byte characters: over DynamoDB's 2,048-byte partition key, under the token limit
    const reply = await post(
      '/v1/metadata/accounts/get',
      { appSecret, userSecret: user.userSecret, sync: true },
      { authorization: `Bearer ${'é'.repeat(1_100)}.at_x` },
    );

    // assess
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(failed('UNAUTHORIZED'));
  });

  it('every field at its maximum is accepted, stored and listed', async () => {
    // prepare
    const fresh = await createUser('SANDBOX_BENEFICIARY');
    const longest = (limit: number) => 'y'.repeat(limit);

    // act
    const created = await fresh.call('/v1/payment/beneficiaries/create', {
      sync: true,
      ...walletBeneficiary({
        name: longest(limits.text),
        bankName: longest(limits.text),
        branchName: longest(limits.text),
        branchAddress: longest(limits.text),
        country: longest(limits.text),
        type: longest(limits.text),
        accountNumber: longest(limits.accountNumber),
        swiftCode: longest(limits.code),
        sortCode: longest(limits.code),
        address: { line1: longest(limits.text), line2: longest(limits.text), line3: longest(limits.text) },
      }),
    });
    const listed = await fresh.call('/v1/payment/beneficiaries/get', { sync: true });

    // assess
    expect(created.body).toMatchObject({ status: 'done' });
    expect(listed.body.beneficiaries).toEqual([
      expect.objectContaining({ id: expect.any(String), name: longest(limits.text) }),
    ]);
  });
});

describe('administration routes: the same maxima', () => {
  it.each([
    [
      '/v1/auth/ExchangeToken',
      { appSecret, accessCode: 'ac_x', connectionID: 'conn_x' },
      ['appSecret', 'accessCode'],
    ],
    ['/sandbox/users', { appSecret, bankId: 'SANDBOX_BENEFICIARY' }, ['appSecret']],
    ['/sandbox/users/get', { appSecret, connectionID: 'conn_x' }, ['appSecret']],
    ['/sandbox/faults', { appSecret, connectionID: 'conn_x', faults: [] }, ['appSecret']],
  ])('%s', async (path, body, secretFields) => {
    // prepare
    const cases: Oversized[] = [
      ...secretFields.map((field) => ({ field, value: over(limits.secret) })),
      ...('connectionID' in body ? [{ field: 'connectionID', value: over(limits.id) }] : []),
      ...('bankId' in body ? [{ field: 'bankId', value: over(limits.id) }] : []),
      ...('faults' in body
        ? [
            { field: 'faults', value: Array.from({ length: limits.faultRules + 1 }, () => ({})) },
            { field: 'faults.0.path', value: `/${over(limits.faultPath)}` },
          ]
        : []),
    ];

    // act
    const replies = await Promise.all(
      cases.map(async ({ field, value }) => ({
        field,
        reply: await post(
          path,
          withValue(field.startsWith('faults.') ? { ...body, faults: [{}] } : body, field, value),
          {},
        ),
      })),
    );

    // assess
    for (const { field, reply } of replies) {
      expect({ field, status: reply.status, body: reply.body }).toEqual({
        field,
        status: 400,
        body: badRequestNaming(field),
      });
    }
  });
});
