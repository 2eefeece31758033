/**
 * The connection's lease names its holder and its time, on DynamoDB Local: what a step that found it
 * busy reads to tell another run of its own deposit (which it leaves alone) from another deposit.
 * And it keeps who waits for it: recorded while another holds it, handed to its freer, taken off to
 * be woken by one freer only, and ended when the waiter takes the lease itself.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { ConnectionLeaseItems } from '#shared/adapters/connection-lease-items';
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

  it('keeps who waits for it while another holds it, hands them to its freer, and lets one freer take each', async () => {
    // prepare
    const ownerKey = `owner-${randomUUID()}`;
    const now = Date.now();
    const first = {
      depositId: 'dep_1',
      step: 'transfer',
      version: 3,
      since: now,
      trace: 'Root=1-a',
    } as const;
    const second = { depositId: 'dep_2', step: 'resolve-bank', version: 1, since: now + 1 } as const;

    // act
    const onFree = await leases.wait(ownerKey, first, now);
    await leases.acquire(ownerKey, 'dep_9#run', now + 8_000, now);
    const recorded = await leases.wait(ownerKey, first, now);
    await leases.wait(ownerKey, second, now);
    await leases.wait(ownerKey, { ...second, version: 2 }, now);
    const byAnother = await leases.release(ownerKey, 'dep_8#run');
    const handed = await leases.release(ownerKey, 'dep_9#run');
    const woken = await leases.wake(ownerKey, 'dep_2');
    const again = await leases.wake(ownerKey, 'dep_2');
    // The first waiter takes the lease itself: its wait ends with the take.
    await leases.acquire(ownerKey, 'dep_1#run', now + 8_000, now);
    const left = await leases.release(ownerKey, 'dep_1#run');

    // assess
    expect(onFree).toBe(false);
    expect(recorded).toBe(true);
    expect(byAnother).toEqual([]);
    expect(handed.sort((a, b) => a.since - b.since)).toEqual([first, { ...second, version: 2 }]);
    expect(woken).toEqual({ ...second, version: 2 });
    expect(again).toBeUndefined();
    expect(left).toEqual([]);
  });
});
