/**
 * 1,000 deposits a second on paper: no partition of the deposits table or of its indexes takes more
 * than half of DynamoDB's per-partition write limit. The writes are those a first and a repeat
 * deposit make through the real steps, placed by the table's own key functions (`test/bench/key-model.ts`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { keyModel, partitionLimits, recordDeposits } from '../bench/key-model.ts';

let recorded: Awaited<ReturnType<typeof recordDeposits>>;

beforeAll(async () => {
  recorded = await recordDeposits();
});

describe('the key model at 1,000 deposits a second', () => {
  it('meets every partition the deposits write: the deposit, its connection, the indexes', () => {
    const partitions = keyModel(recorded).map((load) => `${load.where} ${load.partition.split(' ')[0]}`);

    for (const expected of [
      'table DEPOSIT#<id>',
      'table IDEMPOTENCY#<owner>#<key>',
      'table LEASE#<owner>',
      'table BENEFICIARY#<owner>#<wallet',
      'table BANK#<owner>#<reader>',
      'byCheckAt CHECK#<shard>',
      'byStatus initialized#<shard>',
      'byStatus done#<shard>',
      'byOwner listedBy',
      // Every deposit one backend's, as a wallet backend's are: the worst its shards meet.
      'byBackend <backend>#<shard>',
    ])
      expect(partitions).toContain(expected);
  });

  it('no partition takes more than half of its write limit', () => {
    const over = keyModel(recorded).filter((load) => load.writeUnits > partitionLimits.writeUnits / 2);

    expect(over).toEqual([]);
  });

  it('would not hold with the shards it had before (8 of byCheckAt, byStatus and byBackend unsharded)', () => {
    const before = keyModel(recorded, 1_000, { byCheckAt: 8, byStatus: 1, byBackend: 1 });
    const over = before
      .filter((load) => load.writeUnits > partitionLimits.writeUnits / 2)
      .map((load) => `${load.where} ${load.partition}`);

    expect(over.sort()).toEqual([
      'byBackend <backend>#<shard>',
      'byCheckAt CHECK#<shard>',
      'byStatus done#<shard>',
      'byStatus initialized#<shard>',
    ]);
  });
});
