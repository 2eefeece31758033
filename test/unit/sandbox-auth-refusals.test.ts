/**
 * Authentication: every provider endpoint refuses bad credentials with 401 UNAUTHORIZED, and
 * applications are isolated. In process: the sandbox's routes composed as their handlers are, over
 * its in-memory fake store (the sanctioned stand-in for its table) and a manual clock
 * (`test/support/in-process-sandbox.ts`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { appSecret, createUser, failed, post, type TestUser } from '../support/in-process-sandbox.ts';
import { endpoints, exchange, newApplication, unauthorized } from '../support/sandbox-auth.ts';

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
