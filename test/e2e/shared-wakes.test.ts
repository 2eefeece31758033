/**
 * Conditions of the deposits table's adapters in DynamoDB Local, where the fakes cannot prove them:
 * a follower joins only a shared wake-up for its exact instant, still ahead, armed by another, and
 * the source that armed it takes its followers once; the record of a created beneficiary whose id is
 * not known yet survives its creator's release and is completed by whoever looks it up; the
 * sweeper's defer leaves no event behind.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { DepositItems, IdempotencyItems } from '#shared/adapters/deposit-items';
import { DueDepositsIndex } from '#shared/adapters/deposits-indexes';
import { BeneficiaryClaimItems } from '#shared/adapters/deposits-table';
import { SharedWakeItems } from '#shared/adapters/shared-wakes';
import type { Deposit } from '#shared/deposits/model/deposit';
import { localDynamoDb } from '../support/local-dynamodb.ts';

const client = localDynamoDb();
const wakes = new SharedWakeItems({ client, tableName: inject('tableNames').deposits });

describe('the shared wake-up in the deposits table', () => {
  it('joined only for its instant while still ahead, never by its own source; taken once by its source', async () => {
    // prepare
    const owner = `owner-${randomUUID()}`;
    const now = Date.now();
    const at = now + 60_000;
    expect(await wakes.arm(owner, 'wallet-aed', 'src_1', at, now)).toBe(true);
    const follower = (depositId: string) => ({ depositId, version: 2, step: 'transfer' as const });

    // act
    const joined = await wakes.follow(owner, 'wallet-aed', follower('dep_a'), at, now);
    const otherInstant = await wakes.follow(owner, 'wallet-aed', follower('dep_b'), at + 1, now);
    const itself = await wakes.follow(owner, 'wallet-aed', follower('src_1'), at, now);
    const tooLate = await wakes.follow(owner, 'wallet-aed', follower('dep_c'), at, at);
    const notTheSource = await wakes.take(owner, 'wallet-aed', 'src_other');
    const taken = await wakes.take(owner, 'wallet-aed', 'src_1');
    const again = await wakes.take(owner, 'wallet-aed', 'src_1');

    // assess
    expect([joined, otherInstant, itself, tooLate]).toEqual([true, false, false, false]);
    expect(notTheSource).toEqual([]);
    expect(taken).toEqual([follower('dep_a')]);
    expect(again).toEqual([]);
  });
});

describe('the record of a created beneficiary whose id is not known yet', () => {
  const claims = new BeneficiaryClaimItems({ client, tableName: inject('tableNames').deposits });

  it('outlives its creator: not released, not taken over, completed once by another deposit with its id', async () => {
    // prepare: dep_a claims, creates, and records the creation with its look-up instant
    const ownerKey = `owner-${randomUUID()}`;
    const now = Date.now();
    const lookupAt = now + 86_400_000;
    const base = { ownerKey, walletAccountId: 'wallet-aed', depositId: 'dep_a' };
    expect(await claims.claim({ ...base, state: 'creating', claimedAt: now }, 0)).toBe(true);
    const record = { ...base, state: 'created' as const, claimedAt: lookupAt, lookupAt };
    expect(await claims.update(record)).toBe(true);

    // act: dep_a ends (its release); dep_b tries to claim and to write a claim of its own; dep_b
    // and dep_c complete the record with the id they looked up
    await claims.release(ownerKey, 'wallet-aed', 'dep_a');
    const takenOver = await claims.claim(
      { ...base, depositId: 'dep_b', state: 'creating', claimedAt: now },
      lookupAt * 2,
    );
    const overwritten = await claims.update({
      ...base,
      depositId: 'dep_b',
      state: 'creating',
      claimedAt: now,
    });
    const kept = await claims.get(ownerKey, 'wallet-aed');
    const completed = { ...base, state: 'created' as const, claimedAt: lookupAt, beneficiaryId: 'ben-4' };
    const first = await claims.update({ ...completed, cooldownUntil: lookupAt });
    const second = await claims.update({ ...completed, beneficiaryId: 'ben-5', cooldownUntil: lookupAt });
    await claims.forget(ownerKey, 'wallet-aed');

    // assess
    expect([takenOver, overwritten, first, second]).toEqual([false, false, true, false]);
    expect(kept).toEqual(record);
    expect(await claims.get(ownerKey, 'wallet-aed')).toMatchObject({
      state: 'created',
      beneficiaryId: 'ben-4',
    });
  });

  it('a creating claim released by its ending holder stays, claimable at once, with what fitted before its creation', async () => {
    // prepare: dep_a claims and records what fitted the wallet before the creation it sends
    const ownerKey = `owner-${randomUUID()}`;
    const now = Date.now();
    const base = { ownerKey, walletAccountId: 'wallet-aed', depositId: 'dep_a' };
    await claims.claim({ ...base, state: 'creating', claimedAt: now }, 0);
    await claims.update({ ...base, state: 'creating', claimedAt: now, fittingBeforeCreation: ['ben-0'] });

    // act: another deposit's release changes nothing; dep_a's frees it; dep_b takes it over at once
    await claims.release(ownerKey, 'wallet-aed', 'dep_b');
    const stillHeld = await claims.get(ownerKey, 'wallet-aed');
    await claims.release(ownerKey, 'wallet-aed', 'dep_a');
    const freed = await claims.get(ownerKey, 'wallet-aed');
    const takenOver = await claims.claim(
      { ...base, depositId: 'dep_b', state: 'creating', claimedAt: now, fittingBeforeCreation: ['ben-0'] },
      now - 60_000,
    );

    // assess
    expect(stillHeld).toMatchObject({ depositId: 'dep_a', claimedAt: now });
    expect(freed).toMatchObject({
      depositId: 'dep_a',
      state: 'creating',
      claimedAt: 0,
      fittingBeforeCreation: ['ben-0'],
    });
    expect(takenOver).toBe(true);
    expect(await claims.get(ownerKey, 'wallet-aed')).toMatchObject({
      depositId: 'dep_b',
      fittingBeforeCreation: ['ben-0'],
    });
  });

  it('forgotten without an id only while it has none', async () => {
    // prepare
    const ownerKey = `owner-${randomUUID()}`;
    const now = Date.now();
    const base = { ownerKey, walletAccountId: 'wallet-aed', depositId: 'dep_a' };
    await claims.claim({ ...base, state: 'creating', claimedAt: now }, 0);
    await claims.update({ ...base, state: 'created', claimedAt: now, lookupAt: now });

    // act
    await claims.forget(ownerKey, 'wallet-aed');

    // assess: gone, and a deposit may claim its creation again
    expect(await claims.get(ownerKey, 'wallet-aed')).toBeUndefined();
    expect(await claims.claim({ ...base, depositId: 'dep_b', state: 'creating', claimedAt: now }, 0)).toBe(
      true,
    );
  });
});

describe("the sweeper's defer", () => {
  it('moves the check time without the version’s event: the stream does not bring it again', async () => {
    // prepare: a deposit version that carries its event (its outbox)
    const table = { client, tableName: inject('tableNames').deposits };
    const deposits = new DepositItems(table);
    const id = `dep_defer_${randomUUID()}`;
    const now = Date.now();
    const deposit: Deposit = {
      id,
      ownerKey: 'owner-defer',
      readerKey: 'reader-defer',
      idempotencyKey: id,
      fingerprint: 'f',
      status: 'initialized',
      step: 'transfer',
      version: 1,
      amountMinor: 100,
      currency: 'AED',
      senderId: 'acc-1',
      walletAccountId: 'wallet-aed',
      stepCounters: { retries: 0 },
      history: [],
      createdAt: now,
      updatedAt: now,
      checkAt: now - 1,
      event: {
        id: `${id}.v1`,
        type: 'deposit.cooling_down',
        depositId: id,
        occurredAt: new Date(now).toISOString(),
        data: {},
      },
    };
    expect(await new IdempotencyItems(table).createOnce(deposit)).toEqual({ created: true });

    // act
    const deferred = await new DueDepositsIndex(table).defer(deposit, now + 60_000);

    // assess
    const after = await deposits.get(id);
    expect(deferred).toBe(true);
    expect(after).toMatchObject({ version: 1, checkAt: now + 60_000, redrives: 1 });
    expect(after?.event).toBeUndefined();
  });
});
