/**
 * Applications created through `POST /sandbox/applications` expire as users do: the answer says when
 * (30 days on), the item carries the table's time to live for that moment, and the application works
 * until then (its refusal after it is a unit test on a manual clock: test/unit/sandbox-input.test.ts).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { tables } from '#infra/topology';
import { CreateApplicationResponse } from '#shared/sandbox/admin-schemas';
import { SANDBOX_LIFETIME_MS } from '#shared/sandbox/store';
import { digest } from '#shared/secrets';
import { localDynamoDb } from '../support/local-dynamodb.ts';
import { createUser, post } from '../support/sandbox.ts';

const dynamodb = localDynamoDb();

describe('applications expire like users', () => {
  it('answers expiresAt 30 days on, stores the matching time to live, and serves until then', async () => {
    // prepare
    const before = Date.now();

    // act
    const created = await post('/sandbox/applications');
    const after = Date.now();
    const { appSecret, expiresAt } = CreateApplicationResponse.parse(created.body);
    const { Item } = await dynamodb.send(
      new GetCommand({
        TableName: tables.sandbox.localName,
        Key: { pk: `APP#${digest(appSecret)}`, sk: 'APP' },
      }),
    );
    const user = await createUser('SANDBOX_BENEFICIARY', { appSecret });
    const metadata = await user.call('/v1/metadata/accounts/get', { sync: true });

    // assess
    expect(created.status).toBe(201);
    const expiry = Date.parse(expiresAt);
    expect(expiry).toBeGreaterThanOrEqual(before + SANDBOX_LIFETIME_MS);
    expect(expiry).toBeLessThanOrEqual(after + SANDBOX_LIFETIME_MS);
    // DynamoDB's TTL attribute (seconds), for the same moment the application is refused from.
    expect(Item?.expiresAt).toBe(
      Math.floor((expiry - SANDBOX_LIFETIME_MS) / 1000) + SANDBOX_LIFETIME_MS / 1000,
    );
    expect(Item?.expiresAtMs).toBe(expiry);
    expect(metadata.body).toMatchObject({ success: true, status: 'done' });
  });
});
