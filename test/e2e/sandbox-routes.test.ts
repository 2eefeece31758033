/**
 * One pass over every route of the sandbox, over real HTTP against the shared local stack: the gateway,
 * each handler's middleware and wiring, and the DynamoDB table under them. The rules of each route are
 * unit tests, in process over the fake store (test/unit/sandbox-*.test.ts); here each route answers
 * once as a client sees it (documented status and schema, checked by `request`), a bad body and an
 * unknown route answer the failed envelope with a request id, the table keeps secrets only as digests
 * and an application's time to live, and a client that gives up on a hanging request leaves the
 * sandbox serving.
 */
import { createHash } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { CreateApplicationResponse } from '#shared/sandbox/admin-schemas';
import { SANDBOX_LIFETIME_MS } from '#shared/sandbox/store';
import { digest } from '#shared/secrets';
import { sandboxApi } from '#shared/topology';
import { assessReplies, oddBodies } from '../support/fuzz.ts';
import { localDynamoDb } from '../support/local-dynamodb.ts';
import {
  failed,
  type Reply,
  request,
  sandboxUrl,
  walletBeneficiary,
  walletIban,
  walletInline,
} from '../support/sandbox.ts';

const dynamodb = localDynamoDb();
const sha256 = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('base64url');

/** The routes this pass has called, to hold it to the topology's list. */
const walked = new Set<string>();

function call(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  walked.add(`${method} ${path}`);
  return request(method, path, body, headers);
}

/** A user of `app` at `bankId`, its access code exchanged at `exchangePath`. */
async function userOf(app: string, bankId: string, exchangePath = '/v1/auth/ExchangeToken') {
  const created = await call('POST', '/sandbox/users', { appSecret: app, bankId });
  expect(created.status).toBe(201);
  const { connectionID, accessCode, userSecret, accounts, cards } = created.body;
  const exchanged = await call('POST', exchangePath, { appSecret: app, accessCode, connectionID });
  expect(exchanged).toMatchObject({ status: 200, body: { success: true, status: 'done' } });
  const accessToken: string = exchanged.body.accessToken;
  return {
    connectionID: connectionID as string,
    accessCode: accessCode as string,
    userSecret: userSecret as string,
    accessToken,
    accountId: accounts[0].id as string,
    cardId: cards[0].id as string,
    call: (path: string, body: Record<string, unknown> = {}) =>
      call('POST', path, { appSecret: app, userSecret, ...body }, { authorization: `Bearer ${accessToken}` }),
  };
}

/** The user's items in the sandbox's table. */
async function storedItems(connectionID: string) {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamodb.send(
      new QueryCommand({
        TableName: inject('tableNames').sandbox,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `CONN#${connectionID}` },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

const done = { success: true, status: 'done' };

/** The wallet as the v2 dialect's SDKs send it (Go's `CreateBeneficiaryInfo`: no `sortCode`). */
const v2Wallet = {
  name: 'Acme Wallet LLC',
  iban: walletIban,
  accountNumber: '1234567890123456',
  swiftCode: 'WALTAEAD',
  type: 'local',
  country: 'AE',
  bankName: 'Wallet Bank',
  address: { line1: 'Wallet Street 1' },
};

describe('every sandbox route once, over HTTP', () => {
  afterAll(() => {
    // Every route of the topology was called above (the v1 and v2 dialects' own paths included).
    const routes = sandboxApi.routes.map(({ method, path }) => `${method} ${path}`);
    expect(routes.filter((route) => !walked.has(route))).toEqual([]);
  });

  it('health and the bank catalog', async () => {
    expect(await call('GET', '/health')).toEqual({ status: 200, body: { status: 'ok' } });
    const banks = await call('GET', '/sandbox/banks');
    expect(banks.status).toBe(200);
    expect(banks.body.banks).toEqual(
      expect.arrayContaining([expect.objectContaining({ bankId: 'SANDBOX_BENEFICIARY' })]),
    );
  });

  it('an application, its user through scenario 1 (v1), the operation reads, the card balance, faults and the user read; the table keeps digests and the time to live', async () => {
    // prepare: an application of its own, stored with its time to live
    const before = Date.now();
    const application = await call('POST', '/sandbox/applications', {});
    const after = Date.now();
    const { appSecret: app, expiresAt } = CreateApplicationResponse.parse(application.body);
    const { Item } = await dynamodb.send(
      new GetCommand({
        TableName: inject('tableNames').sandbox,
        Key: { pk: `APP#${digest(app)}`, sk: 'APP' },
      }),
    );

    // act
    const user = await userOf(app, 'SANDBOX_BENEFICIARY');
    const metadata = await user.call('/v1/metadata/accounts/get', { sync: true });
    const created = await user.call('/v1/payment/beneficiaries/create', {
      sync: true,
      ...walletBeneficiary(),
    });
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });
    const transfer = await user.call('/v1/payment/transfer/create', {
      sync: true,
      amount: 12.5,
      senderID: user.accountId,
      receiverID: listed.body.beneficiaries[0]?.id,
    });
    const readV2 = await user.call('/v2/operation/get', { operationID: transfer.body.operationID });
    const readV1 = await user.call('/v1/operation/get', { operationID: transfer.body.operationID });
    const balance = await user.call('/v2/data/balance/get', { sync: true, cardID: user.cardId });
    const faults = await call('POST', '/sandbox/faults', {
      appSecret: app,
      connectionID: user.connectionID,
      faults: [{ path: '/v1/metadata/accounts/get', outcome: 'error', status: 503, times: 1 }],
    });
    const faulted = await user.call('/v1/metadata/accounts/get', { sync: true });
    const state = await call('POST', '/sandbox/users/get', {
      appSecret: app,
      connectionID: user.connectionID,
    });
    const items = await storedItems(user.connectionID);
    const stored = JSON.stringify(items);

    // assess
    expect(application.status).toBe(201);
    const expiry = Date.parse(expiresAt);
    expect(expiry).toBeGreaterThanOrEqual(before + SANDBOX_LIFETIME_MS);
    expect(expiry).toBeLessThanOrEqual(after + SANDBOX_LIFETIME_MS);
    // DynamoDB's TTL attribute (seconds), for the same moment the application is refused from.
    expect(Item?.expiresAt).toBe(
      Math.floor((expiry - SANDBOX_LIFETIME_MS) / 1000) + SANDBOX_LIFETIME_MS / 1000,
    );
    expect(Item?.expiresAtMs).toBe(expiry);
    expect(metadata.body).toMatchObject({ ...done, accountsMetadata: expect.any(Object) });
    expect(created.body).toMatchObject(done);
    expect(listed.body.beneficiaries).toEqual([expect.objectContaining({ status: 'approved' })]);
    expect(transfer.body).toMatchObject({ ...done, reference: expect.any(String) });
    expect(readV2.body).toMatchObject({ ...done, operationID: transfer.body.operationID });
    expect(readV1.body).toEqual(readV2.body);
    expect(balance.body).toMatchObject({ ...done, balance: expect.any(Object) });
    expect(faults.status).toBe(200);
    expect(faulted).toEqual({ status: 503, body: failed('SERVICE_UNAVAILABLE') });
    expect(state.body.accounts[0].balance).toBe(99_987.5);
    expect(state.body.faults).toEqual([expect.objectContaining({ remaining: 0 })]);
    // The table holds the user's items, with the digests of its secrets (so the query reads them)...
    const kinds = items.map((item) => String(item.sk).split('#')[0]).sort();
    expect(kinds).toEqual(['ACCOUNT', 'BENEFICIARY', 'CARD', 'CONNECTION', 'CREATION', 'IBAN', 'TRANSFER']);
    expect(stored).toContain(sha256(user.userSecret));
    expect(stored).toContain(sha256(app));
    expect(stored).toContain(sha256(user.accessToken));
    // ...and never the secrets themselves, nor the random part of the token.
    const tokenSecret = user.accessToken.slice(user.accessToken.indexOf('.') + 1);
    for (const secret of [user.userSecret, user.accessCode, user.accessToken, tokenSecret, app]) {
      expect(secret.length).toBeGreaterThan(20);
      expect(stored).not.toContain(secret);
    }
  });

  it('the inline transfer at a bank without beneficiaries, on /autoflow', async () => {
    const user = await userOf('sandbox-local-app-secret', 'SANDBOX_NO_BENEFICIARY');
    const reply = await user.call('/v1/payment/transfer/autoflow', {
      sync: true,
      amount: 10,
      senderID: user.accountId,
      action: 'deposit',
      beneficiary: walletInline(),
    });
    expect(reply.body).toMatchObject({ ...done, reference: expect.any(String) });
  });

  it('the v2 dialect: its token exchange, metadata, beneficiaries, transfer and autoflow', async () => {
    // prepare
    const user = await userOf('sandbox-local-app-secret', 'SANDBOX_BENEFICIARY', '/v2/auth/ExchangeToken');
    const direct = await userOf(
      'sandbox-local-app-secret',
      'SANDBOX_NO_BENEFICIARY',
      '/v2/auth/ExchangeToken',
    );

    // act
    const metadata = await user.call('/v2/metadata/accounts/get');
    const created = await user.call('/v2/payment/beneficiaries/create', v2Wallet);
    const listed = await user.call('/v2/payment/beneficiaries/get');
    const transfer = await user.call('/v2/payment/transfer/create', {
      senderID: user.accountId,
      amount: 25,
      receiverID: listed.body.beneficiaries[0]?.id,
    });
    const { type: _type, ...receiver } = v2Wallet;
    const autoflow = await direct.call('/v2/payment/transfer/autoflow', {
      senderID: direct.accountId,
      amount: 10,
      bankID: '',
      Beneficiary: receiver,
    });

    // assess
    for (const reply of [metadata, created, listed, transfer, autoflow]) {
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body).toMatchObject({ ...done, operationID: expect.any(String) });
    }
    expect(listed.body.beneficiaries).toEqual([expect.objectContaining({ iban: walletIban })]);
  });

  it('a bad body, an unknown route and odd bodies answer the failed envelope with a request id, never a 5xx', async () => {
    // act
    const malformed = await call('POST', '/v1/metadata/accounts/get', 'nope');
    const unknown = await request('POST', '/v1/nope', {});
    const odd = await Promise.all(
      oddBodies({}).map(async (body) => {
        const response = await fetch(`${sandboxUrl}/v1/payment/transfer/create`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        return { status: response.status, text: await response.text() };
      }),
    );

    // assess
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual(failed('BAD_REQUEST'));
    expect(malformed.body.requestId).toEqual(expect.any(String));
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(failed('NOT_FOUND'));
    expect(unknown.body.requestId).toEqual(expect.any(String));
    assessReplies(
      'POST /v1/payment/transfer/create',
      oddBodies({}).map((body) => ({ body })),
      odd,
    );
  });

  it('lets a client give up on a hanging request, and keeps serving afterwards', async () => {
    // prepare
    const user = await userOf('sandbox-local-app-secret', 'SANDBOX_BENEFICIARY');
    const started = performance.now();

    // act: the sandbox hangs for SANDBOX_TIMEOUT_MS (2.5 s); the client waits 300 ms only
    const outcome = await fetch(`${sandboxUrl}/v1/metadata/accounts/get`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${user.accessToken}`,
        'x-sandbox-fault': 'timeout',
      },
      body: JSON.stringify({
        appSecret: 'sandbox-local-app-secret',
        userSecret: user.userSecret,
        sync: true,
      }),
      signal: AbortSignal.timeout(300),
    }).then(
      (response) => ({ gaveUp: false, status: response.status }),
      (error: Error) => ({ gaveUp: true, name: error.name }),
    );
    const gaveUpAfterMs = performance.now() - started;
    const health: Reply = await request('GET', '/health');
    const next = await user.call('/v1/metadata/accounts/get', { sync: true });

    // assess
    expect(outcome).toEqual({ gaveUp: true, name: 'TimeoutError' });
    expect(gaveUpAfterMs).toBeGreaterThanOrEqual(290);
    expect(gaveUpAfterMs).toBeLessThan(1_500);
    expect(health.status).toBe(200);
    expect(next.body).toMatchObject(done);
  });
});
