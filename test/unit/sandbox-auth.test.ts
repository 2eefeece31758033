/**
 * Authentication: the token exchange (single-use, expiring access codes), the bearer token and the two
 * secrets every provider endpoint demands, and isolation between applications. That the table keeps
 * secrets only as digests is the e2e pass's (test/e2e/sandbox-routes.test.ts), which reads the table.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 *
 * Bad credentials on the provider endpoints, and applications apart:
 * `sandbox-auth-refusals.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { ExchangeTokenResponse } from '#shared/provider/interface/responses';
import { appSecret, clock, createUser, failed } from '../support/in-process-sandbox.ts';
import { exchange, newApplication, newConnection, unauthorized } from '../support/sandbox-auth.ts';

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
