/**
 * The connection's lease names its holder and its time, on DynamoDB Local: what a step that found it
 * busy reads to tell another run of its own deposit (which it leaves alone) from another deposit.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { ConnectionLeaseItems } from '#shared/adapters/deposits-table';
import { localDynamoDb } from '../support/local-dynamodb.ts';

const leases = new ConnectionLeaseItems({
  client: localDynamoDb(),
  tableName: inject('tableNames').deposits,
});

describe("the connection's lease", () => {
  it('names its holder and until when; nobody before it is taken nor after it is given back', async () => {
    // prepare
    const ownerKey = `owner-${randomUUID()}`;
    const now = Date.now();

    // act
    const never = await leases.holderOf(ownerKey);
    await leases.acquire(ownerKey, 'dep_1#run-a', now + 8_000, now);
    const held = await leases.holderOf(ownerKey);
    const refused = await leases.acquire(ownerKey, 'dep_1#run-b', now + 8_000, now);
    await leases.release(ownerKey, 'dep_1#run-a');
    const released = await leases.holderOf(ownerKey);

    // assess
    expect(never).toBeUndefined();
    expect(held).toEqual({ holder: 'dep_1#run-a', until: now + 8_000 });
    expect(refused).toBe(false);
    expect(released).toBeUndefined();
  });
});
