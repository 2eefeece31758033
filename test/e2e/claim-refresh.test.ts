/**
 * The claims adapter over DynamoDB Local: `refresh` moves only the time of a deposit's own
 * creation claim on, conditionally, and leaves every other field of the item as its live run wrote
 * it; a claim its deposit gave up is its no longer (only the bank's fact, created, is still
 * recorded); `coolDown` moves a created record's cool-down on, when the bank says it still cools down.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { BeneficiaryClaimItems } from '#shared/adapters/deposits-table';
import { localDynamoDb } from '../support/local-dynamodb.ts';

const claims = new BeneficiaryClaimItems({
  client: localDynamoDb(),
  tableName: inject('tableNames').deposits,
});

function claimOf(ownerKey: string, claimedAt: number) {
  return {
    ownerKey,
    walletAccountId: 'wallet-aed',
    state: 'creating' as const,
    depositId: 'dep_a',
    claimedAt,
  };
}

describe('refreshing a creation claim', () => {
  it("moves its time on and keeps what the live run recorded; never another's, never back", async () => {
    // prepare: the live run's claim, with what fitted the wallet before its creation
    const ownerKey = `owner-${randomUUID()}`;
    const at = Date.now();
    expect(await claims.claim({ ...claimOf(ownerKey, at), fittingBeforeCreation: ['ben-x'] }, at - 1)).toBe(
      true,
    );

    // act
    const refreshed = await claims.refresh(ownerKey, 'wallet-aed', 'dep_a', at + 5_000);
    const back = await claims.refresh(ownerKey, 'wallet-aed', 'dep_a', at + 1_000);
    const another = await claims.refresh(ownerKey, 'wallet-aed', 'dep_b', at + 9_000);

    // assess
    expect([refreshed, back, another]).toEqual([true, false, false]);
    expect(await claims.get(ownerKey, 'wallet-aed')).toMatchObject({
      depositId: 'dep_a',
      state: 'creating',
      claimedAt: at + 5_000,
      fittingBeforeCreation: ['ben-x'],
    });
  });
});

describe('a claim its deposit gave up (release)', () => {
  it("is its holder's no longer: refreshed or written as creating, refused; completed as created, it lands", async () => {
    // prepare: dep_a's claim, given up (its deposit cancelled while its step still ran)
    const ownerKey = `owner-${randomUUID()}`;
    const at = Date.now();
    expect(await claims.claim(claimOf(ownerKey, at), at - 1)).toBe(true);
    await claims.release(ownerKey, 'wallet-aed', 'dep_a');

    // act: its late step's writes
    const refreshed = await claims.refresh(ownerKey, 'wallet-aed', 'dep_a', at + 5_000);
    const rewritten = await claims.update({ ...claimOf(ownerKey, at), fittingBeforeCreation: ['ben-x'] });
    const stillFree = await claims.get(ownerKey, 'wallet-aed');
    const completed = await claims.update({
      ...claimOf(ownerKey, at),
      state: 'created',
      beneficiaryId: 'ben-1',
    });

    // assess: free (claimable at once) until the bank's fact was recorded
    expect([refreshed, rewritten, completed]).toEqual([false, false, true]);
    expect(stillFree).toMatchObject({ state: 'creating', claimedAt: 0 });
    expect(stillFree?.fittingBeforeCreation).toBeUndefined();
    expect(await claims.get(ownerKey, 'wallet-aed')).toMatchObject({
      state: 'created',
      beneficiaryId: 'ben-1',
    });
  });
});

describe("correcting our record's cool-down", () => {
  it('moves it on for the beneficiary it names; never back, never for another', async () => {
    // prepare: a created record of ben-1, its cool-down over
    const ownerKey = `owner-${randomUUID()}`;
    const at = Date.now();
    expect(await claims.claim(claimOf(ownerKey, at), at - 1)).toBe(true);
    const created = { ...claimOf(ownerKey, at), state: 'created' as const, beneficiaryId: 'ben-1' };
    expect(await claims.update({ ...created, cooldownUntil: at - 1 })).toBe(true);

    // act
    await claims.coolDown(ownerKey, 'wallet-aed', 'ben-1', at + 60_000);
    await claims.coolDown(ownerKey, 'wallet-aed', 'ben-1', at + 1_000);
    await claims.coolDown(ownerKey, 'wallet-aed', 'ben-2', at + 90_000);

    // assess
    expect(await claims.get(ownerKey, 'wallet-aed')).toMatchObject({
      beneficiaryId: 'ben-1',
      cooldownUntil: at + 60_000,
    });
  });
});
