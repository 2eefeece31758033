/**
 * Every item of a connection's coordination ends on its own: a lease a day after it runs out, our
 * record of the connection's beneficiary 400 days after its claim or its last transfer. On DynamoDB
 * Local: the items as written (its TTL sweep is too slow to wait for; the attribute is the proof).
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { ConnectionLeaseItems } from '#shared/adapters/connection-lease-items';
import { BeneficiaryClaimItems } from '#shared/adapters/deposits-table';
import { claimTtlSeconds, keys, leaseTtlAfterUntilSeconds } from '#shared/adapters/deposits-table-items';
import { localDynamoDb } from '../support/local-dynamodb.ts';

const client = localDynamoDb();
const table = { client, tableName: inject('tableNames').deposits };

async function raw(key: { pk: string; sk: string }) {
  const { Item } = await client.send(
    new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }),
  );
  return Item;
}

describe('the lifetimes of coordination items', () => {
  it('a lease expires a day after its own time runs out, moved on with each take', async () => {
    const leases = new ConnectionLeaseItems(table);
    const ownerKey = `owner-${randomUUID()}`;
    const now = Date.now();

    await leases.acquire(ownerKey, 'dep_1#a', now + 6_000, now);
    const first = await raw(keys.lease(ownerKey));
    await leases.acquire(ownerKey, 'dep_1#own', now + 240_000, now, 'dep_1#a');
    const kept = await raw(keys.lease(ownerKey));

    expect(first?.expiresAt).toBe(Math.ceil((now + 6_000) / 1000) + leaseTtlAfterUntilSeconds);
    expect(kept?.expiresAt).toBe(Math.ceil((now + 240_000) / 1000) + leaseTtlAfterUntilSeconds);
  });

  it("our record of a connection's beneficiary expires 400 days after its claim, and again after each use", async () => {
    const claims = new BeneficiaryClaimItems(table);
    const ownerKey = `owner-${randomUUID()}`;
    const claimedAt = Date.now() - 30 * 86_400_000;
    const claim = {
      ownerKey,
      walletAccountId: 'wallet-aed',
      state: 'creating' as const,
      depositId: 'dep_1',
      claimedAt,
    };

    expect(await claims.claim(claim, claimedAt - 1)).toBe(true);
    const claimed = await raw(keys.beneficiary(ownerKey, 'wallet-aed'));
    const before = Math.floor(Date.now() / 1000);
    await claims.markUsed(ownerKey, 'wallet-aed');
    const used = await raw(keys.beneficiary(ownerKey, 'wallet-aed'));

    expect(claimed?.expiresAt).toBe(Math.floor(claimedAt / 1000) + claimTtlSeconds);
    expect(used?.expiresAt).toBeGreaterThanOrEqual(before + claimTtlSeconds);
    expect((await claims.get(ownerKey, 'wallet-aed'))?.used).toBe(true);
  });
});
