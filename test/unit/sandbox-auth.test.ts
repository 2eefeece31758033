/**
 * Authentication: the token exchange (single-use, expiring access codes), the bearer token and the two
 * secrets every provider endpoint demands, and isolation between applications. That the table keeps
 * secrets only as digests is the e2e pass's (test/e2e/sandbox-routes.test.ts), which reads the table.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ExchangeTokenResponse } from '#shared/provider/interface/responses';
import { CreateApplicationResponse } from '#shared/sandbox/admin-schemas';
import {
  appSecret,
  clock,
  createUser,
  failed,
  post,
  type TestUser,
  walletBeneficiary,
  walletInline,
} from '../support/in-process-sandbox.ts';

const unauthorized = {
  success: false,
  status: 'failed',
  type: 'UNAUTHORIZED',
  msg: 'Invalid access token',
  requestId: expect.any(String),
};

/** A user created over HTTP whose access code has not been exchanged yet. */
async function newConnection(bankId = 'SANDBOX_BENEFICIARY', settings: Record<string, unknown> = {}) {
  const created = await post('/sandbox/users', { appSecret, bankId, ...settings });
  if (created.status !== 201) throw new Error(`user not created: ${JSON.stringify(created.body)}`);
  const { connectionID, accessCode, userSecret } = created.body as Record<string, string>;
  return { connectionID: connectionID ?? '', accessCode: accessCode ?? '', userSecret: userSecret ?? '' };
}

const exchange = (body: Record<string, unknown>) => post('/v1/auth/ExchangeToken', body);

/** A new application's secret (POST /sandbox/applications). */
async function newApplication(): Promise<string> {
  const created = await post('/sandbox/applications', {});
  if (created.status !== 201) throw new Error(`application not created: ${JSON.stringify(created.body)}`);
  return CreateApplicationResponse.parse(created.body).appSecret;
}

/** Every provider endpoint with a well-formed body (secrets added by the caller). */
const endpoints: { path: string; body: (user: TestUser) => Record<string, unknown> }[] = [
  { path: '/v1/metadata/accounts/get', body: () => ({ sync: true }) },
  { path: '/v1/payment/beneficiaries/get', body: () => ({ sync: true }) },
  { path: '/v1/payment/beneficiaries/create', body: () => ({ sync: true, ...walletBeneficiary() }) },
  {
    path: '/v1/payment/transfer/create',
    body: (user) => ({ sync: true, amount: 10, senderID: user.accountId, receiverID: 'ben_unknown' }),
  },
  {
    path: '/v1/payment/transfer/autoflow',
    body: (user) => ({
      amount: 10,
      senderID: user.accountId,
      action: 'deposit',
      beneficiary: walletInline(),
    }),
  },
  { path: '/v2/data/balance/get', body: (user) => ({ sync: true, cardID: user.cardId }) },
  { path: '/v2/operation/get', body: () => ({ operationID: 'op_unknown' }) },
  { path: '/v1/operation/get', body: () => ({ operationID: 'op_unknown' }) },
];

describe('token exchange (POST /v1/auth/ExchangeToken)', () => {
  it('exchanges an access code for a token once; a second exchange is refused', async () => {
    // prepare
    const { connectionID, accessCode } = await newConnection();

    // act
    const first = await exchange({ appSecret, accessCode, connectionID });
    const second = await exchange({ appSecret, accessCode, connectionID });

    // assess
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true, status: 'done', accessToken: expect.any(String) });
    expect(ExchangeTokenResponse.parse(first.body).accessToken.length).toBeGreaterThan(20);
    expect(second.status).toBe(400);
    expect(second.body).toEqual(failed('INVALID_ACCESS_CODE'));
    expect(second.body.accessToken).toBeUndefined();
  });

  it('refuses an access code once its lifetime has passed', async () => {
    // prepare
    const { connectionID, accessCode } = await newConnection('SANDBOX_BENEFICIARY', {
      accessCodeTtlSeconds: 1,
    });
    // The code's lifetime (1 s) passes on the sandbox's clock.
    clock.advance(1_100);

    // act
    const late = await exchange({ appSecret, accessCode, connectionID });

    // assess
    expect(late.status).toBe(400);
    expect(late.body).toEqual(failed('INVALID_ACCESS_CODE'));
  });

  it('accepts a code with a short lifetime while it is still valid', async () => {
    // prepare
    const { connectionID, accessCode } = await newConnection('SANDBOX_BENEFICIARY', {
      accessCodeTtlSeconds: 5,
    });

    // act
    const exchanged = await exchange({ appSecret, accessCode, connectionID });

    // assess
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toMatchObject({ success: true, status: 'done' });
  });

  it('refuses a wrong access code without burning the right one', async () => {
    // prepare
    const { connectionID, accessCode } = await newConnection();

    // act
    const wrong = await exchange({ appSecret, accessCode: `${accessCode}x`, connectionID });
    const other = await exchange({ appSecret, accessCode: 'ac_not-the-code', connectionID });
    const right = await exchange({ appSecret, accessCode, connectionID });

    // assess
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual(failed('INVALID_ACCESS_CODE'));
    expect(other.status).toBe(400);
    expect(other.body).toEqual(failed('INVALID_ACCESS_CODE'));
    expect(right.status).toBe(200);
    expect(right.body).toMatchObject({ success: true, status: 'done' });
  });

  it('refuses the code of another user', async () => {
    // prepare
    const mine = await newConnection();
    const theirs = await newConnection();

    // act
    const crossed = await exchange({
      appSecret,
      accessCode: theirs.accessCode,
      connectionID: mine.connectionID,
    });

    // assess
    expect(crossed.status).toBe(400);
    expect(crossed.body).toEqual(failed('INVALID_ACCESS_CODE'));
  });

  it('answers 401 UNAUTHORIZED for a wrong appSecret or an unknown connectionID', async () => {
    // prepare
    const { connectionID, accessCode } = await newConnection();
    const otherApp = await newApplication();

    // act
    const wrongSecret = await exchange({ appSecret: 'app_wrong', accessCode, connectionID });
    const otherAppSecret = await exchange({ appSecret: otherApp, accessCode, connectionID });
    const unknownConnection = await exchange({ appSecret, accessCode, connectionID: 'conn_unknown' });
    const stillValid = await exchange({ appSecret, accessCode, connectionID });

    // assess
    for (const reply of [wrongSecret, otherAppSecret, unknownConnection]) {
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(unauthorized);
    }
    expect(stillValid.status).toBe(200);
  });

  it.each(['appSecret', 'accessCode', 'connectionID'])(
    'answers 400 BAD_REQUEST without %s',
    async (field) => {
      // prepare
      const connection = await newConnection();
      const { [field]: _dropped, ...body } = {
        appSecret,
        accessCode: connection.accessCode,
        connectionID: connection.connectionID,
      } as Record<string, string>;

      // act
      const reply = await exchange(body);

      // assess
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({
        success: false,
        status: 'failed',
        requestId: expect.any(String),
        type: 'BAD_REQUEST',
        msg: 'Invalid JSON request',
        details: [expect.stringMatching(new RegExp(`^${field}: `))],
      });
    },
  );

  it('gives a permanent token: repeated calls with it keep working', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const replies = [];
    for (let round = 0; round < 3; round++) {
      replies.push(await user.call('/v1/metadata/accounts/get', { sync: true }));
      replies.push(await user.call('/v2/data/balance/get', { sync: true, cardID: user.cardId }));
      replies.push(await user.call('/v1/payment/beneficiaries/get', { sync: true }));
    }

    // assess
    expect(replies).toHaveLength(9);
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ success: true, status: 'done' });
    }
  });
});

describe('provider endpoints refuse bad credentials with 401 UNAUTHORIZED', () => {
  let userA: TestUser;
  let userB: TestUser;

  beforeAll(async () => {
    [userA, userB] = await Promise.all([
      createUser('SANDBOX_BENEFICIARY'),
      createUser('SANDBOX_BENEFICIARY'),
    ]);
  });

  /** How each case tampers with user A's request: its Authorization header and its secrets. */
  const cases: {
    name: string;
    authorization: () => string | undefined;
    secrets: () => { appSecret: string; userSecret: string };
  }[] = [
    {
      name: 'no Authorization header',
      authorization: () => undefined,
      secrets: () => ({ appSecret, userSecret: userA.userSecret }),
    },
    {
      name: 'a non-Bearer Authorization header',
      authorization: () => `Basic ${userA.accessToken}`,
      secrets: () => ({ appSecret, userSecret: userA.userSecret }),
    },
    {
      name: 'a bare token without the Bearer scheme',
      authorization: () => userA.accessToken,
      secrets: () => ({ appSecret, userSecret: userA.userSecret }),
    },
    {
      name: 'a garbage token',
      authorization: () => 'Bearer garbage',
      secrets: () => ({ appSecret, userSecret: userA.userSecret }),
    },
    {
      name: 'a forged token naming the right connection',
      authorization: () => `Bearer ${userA.connectionID}.at_forged`,
      secrets: () => ({ appSecret, userSecret: userA.userSecret }),
    },
    {
      name: "user A's token with user B's secrets",
      authorization: () => `Bearer ${userA.accessToken}`,
      secrets: () => ({ appSecret, userSecret: userB.userSecret }),
    },
    {
      name: "user B's token with user A's secrets",
      authorization: () => `Bearer ${userB.accessToken}`,
      secrets: () => ({ appSecret, userSecret: userA.userSecret }),
    },
    {
      name: 'the right token with a wrong appSecret',
      authorization: () => `Bearer ${userA.accessToken}`,
      secrets: () => ({ appSecret: 'app_wrong', userSecret: userA.userSecret }),
    },
    {
      name: 'the right token with a wrong userSecret',
      authorization: () => `Bearer ${userA.accessToken}`,
      secrets: () => ({ appSecret, userSecret: 'us_wrong' }),
    },
  ];

  it.each(endpoints)('$path', async ({ path, body }) => {
    // prepare
    const requests = cases.map(({ name, authorization, secrets }) => {
      const header = authorization();
      return {
        name,
        body: { ...body(userA), ...secrets() },
        headers: (header ? { authorization: header } : {}) as Record<string, string>,
      };
    });

    // act
    const replies = await Promise.all(
      requests.map(async ({ name, body, headers }) => ({ name, reply: await post(path, body, headers) })),
    );
    // The untampered request is not refused: each case above fails only by what it tampers with.
    const control = await userA.call(path, body(userA));

    // assess
    for (const { name, reply } of replies) {
      expect({ name, status: reply.status, body: reply.body }).toEqual({
        name,
        status: 401,
        body: unauthorized,
      });
    }
    expect(control.status).not.toBe(401);
    expect(control.body.type).not.toBe('UNAUTHORIZED');
  });
});

describe('applications are isolated', () => {
  it.each(endpoints)(
    "$path refuses another application's user with the default appSecret",
    async ({ path, body }) => {
      // prepare
      const otherApp = await newApplication();
      const user = await createUser('SANDBOX_BENEFICIARY', { appSecret: otherApp });

      // act
      const withDefault = await user.call(path, { ...body(user), appSecret });
      const withOwn = await user.call(path, body(user));

      // assess
      expect(withDefault.status).toBe(401);
      expect(withDefault.body).toEqual(unauthorized);
      expect(withOwn.status).not.toBe(401);
      expect(withOwn.body.type).not.toBe('UNAUTHORIZED');
    },
  );

  it("serves another application's user with that application's secret", async () => {
    // prepare
    const otherApp = await newApplication();
    const user = await createUser('SANDBOX_BENEFICIARY', { appSecret: otherApp });

    // act
    const metadata = await user.call('/v1/metadata/accounts/get', { sync: true });
    const state = await post('/sandbox/users/get', { appSecret: otherApp, connectionID: user.connectionID });
    const stateWithDefault = await post('/sandbox/users/get', { appSecret, connectionID: user.connectionID });

    // assess
    expect(otherApp).not.toBe(appSecret);
    expect(metadata.status).toBe(200);
    expect(metadata.body).toMatchObject({
      success: true,
      status: 'done',
      accountsMetadata: expect.any(Object),
    });
    expect(state.status).toBe(200);
    expect(state.body.connectionID).toBe(user.connectionID);
    expect(stateWithDefault.status).toBe(401);
    expect(stateWithDefault.body).toEqual(failed('UNAUTHORIZED'));
  });

  it("refuses to exchange another application's access code with the default appSecret", async () => {
    // prepare
    const otherApp = await newApplication();
    const created = await post('/sandbox/users', { appSecret: otherApp, bankId: 'SANDBOX_BENEFICIARY' });
    const { connectionID, accessCode } = created.body;

    // act
    const withDefault = await exchange({ appSecret, accessCode, connectionID });
    const withOwn = await exchange({ appSecret: otherApp, accessCode, connectionID });

    // assess
    expect(created.status).toBe(201);
    expect(withDefault.status).toBe(401);
    expect(withDefault.body).toEqual(unauthorized);
    expect(withOwn.status).toBe(200);
    expect(withOwn.body).toMatchObject({ success: true, status: 'done' });
  });

  it('refuses to create users for an unknown application', async () => {
    // act
    const reply = await post('/sandbox/users', { appSecret: 'app_unknown', bankId: 'SANDBOX_BENEFICIARY' });

    // assess
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(failed('UNAUTHORIZED'));
  });
});
