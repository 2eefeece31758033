/**
 * A beneficiary claim and copies of its step, through the fakes of the ports and a manual clock: a
 * copy that waited for the lease, copies that take the lease as the live run gives it back (at a
 * bank that lists first too), and a claim its deposit gave up (or ended before its step took it).
 */
import { describe, expect, it } from 'vitest';
import type { BeneficiaryClaim } from '#shared/deposits/model/deposit';
import { cancelDeposit } from '#shared/deposits/requests/cancel';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { atStep, claimedBy, creates, readingFirst, run } from '../support/claim-staleness.ts';
import {
  answers,
  banks,
  claimKey,
  credentials,
  ownerKey,
  walletListing,
  world,
} from '../support/deposit-world.ts';

describe('a copy of the step that waited for the lease', () => {
  it('finds the creation recorded once it has the lease: it calls nothing', async () => {
    // prepare: the live run holds the lease; it ends (writes, releases) while the copy waits
    const w = world();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.hiddenCoolDown });
    claimedBy(w, deposit);
    const ctx = w.contexts.ensureBeneficiary();
    let first = true;
    const acquire = ctx.leases.acquire;
    ctx.leases = {
      ...ctx.leases,
      acquire: async (...args) => {
        if (!first) return acquire(...args);
        first = false;
        // The live run records what it found (the creation, the deposit's move), then gives it back.
        w.table.claimItems.set(claimKey, {
          ...(w.table.claimItems.get(claimKey) as BeneficiaryClaim),
          state: 'created',
          lookupAt: w.clock.now() + 60_000,
        });
        w.table.put({ ...deposit, version: deposit.version + 1, step: 'wait-cooldown' });
        return false;
      },
    };

    // act
    await ensureBeneficiary(deposit, ctx);

    // assess
    expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
    expect(w.provider.callsOf('listBeneficiaries')).toEqual([]);
    expect(w.table.leaseItems.size).toBe(0);
    expect(w.table.current(deposit.id)).toMatchObject({
      version: deposit.version + 1,
      step: 'wait-cooldown',
    });
  });
});

/**
 * The live run gives the lease back, and a copy of the step that read the claim before the live run
 * recorded its creation takes it at once (no wait, so no look at the deposit's version). The live run
 * records what it found before it gives the lease back, and the copy looks at the claim again under
 * the lease before it creates: it creates nothing. (This failed before: the lease went back before
 * the record, and the copy created the beneficiary a second time: a chaos finding, seed 3829392926,
 * user 101 at SANDBOX_COOLDOWN_FAST, under a loaded machine.)
 */

describe('a copy of the step that takes the lease as the live run gives it back', () => {
  it('finds the creation recorded: the bank is asked once', async () => {
    // prepare: the copy's first read of the claim is from before the live run's creation
    const w = world();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.hiddenCoolDown });
    const before = claimedBy(w, deposit);
    w.provider.answer('createBeneficiary', answers.done({ jobID: 'j', success: true, status: 'done' }));
    const live = w.contexts.ensureBeneficiary();
    const copy = readingFirst(w.contexts.ensureBeneficiary(), before);
    const release = live.leases.release;
    let copyRan = false;
    live.leases = {
      ...live.leases,
      release: async (...args) => {
        const waiting = await release(...args);
        if (copyRan) return waiting;
        copyRan = true;
        await ensureBeneficiary(deposit, copy);
        return waiting;
      },
    };

    // act
    await ensureBeneficiary(deposit, live);

    // assess
    expect(copyRan).toBe(true);
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created' });
    expect(w.table.current(deposit.id)).toMatchObject({ step: 'wait-cooldown' });
  });
});

/**
 * The same at a bank that lists its beneficiaries at once, where the step lists before it creates:
 * the copy looks at the claim again under the lease before its first call, and asks the bank
 * nothing. (This failed before: the copy listed the beneficiaries once more before its write failed
 * on the deposit's old version; the sources' catalog counted that call under a loaded machine.)
 */

describe('a copy of the step that takes the lease as the live run gives it back, at a bank that lists first', () => {
  it('finds the creation recorded: the bank lists twice and creates once, all the live run’s', async () => {
    // prepare: the copy's first read of the claim is from before the live run's creation
    const w = world();
    const deposit = await atStep(w);
    const before = claimedBy(w, deposit);
    creates(w, 'ben_1');
    const live = w.contexts.ensureBeneficiary();
    const copy = readingFirst(w.contexts.ensureBeneficiary(), before);

    // act: the live run moves on to the transfer with the lease, whose end gives it back; then the copy
    await ensureBeneficiary(deposit, live);
    expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer' });
    w.table.leaseItems.delete(ownerKey);
    await ensureBeneficiary(deposit, copy);

    // assess: the live run's list, creation and list; none of the copy's
    expect(copy.staleReadTaken()).toBe(true);
    expect(w.provider.callsOf('listBeneficiaries')).toHaveLength(2);
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    expect(w.table.current(deposit.id)).toMatchObject({ version: deposit.version + 1 });
  });
});

describe('a claim its deposit gave up is no longer its own', () => {
  it('cancelled while its step lists: the late step neither takes the claim back nor creates, and the next deposit creates at once', async () => {
    // prepare: the step claims and lists; the caller cancels while the bank holds the list, which
    // releases the claim (left claimable at once)
    const w = world();
    const cancelled = await atStep(w);
    w.provider.answer('listBeneficiaries', async () => {
      await cancelDeposit(
        { depositId: cancelled.id, accessToken: credentials.accessToken, userSecret: credentials.userSecret },
        w.contexts.cancel(),
      );
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ depositId: cancelled.id, claimedAt: 0 });
      return walletListing();
    });

    // act: the late step goes on with the list's answer; then the next deposit of the connection
    await run(w, cancelled);
    const next = await atStep(w);
    creates(w, 'ben-1');
    await run(w, next);

    // assess: the released claim stayed free (a late write had made it live again for the claim's
    // whole life, some two minutes, every other deposit of the connection waiting), and one creation
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    expect(w.table.current(cancelled.id)).toMatchObject({ status: 'failed', failure: { type: 'CANCELLED' } });
    expect(w.table.current(next.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-1' });
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', depositId: next.id });
  });

  it('cancelled after its step read it, before the step took the claim: the step gives the claim back once its write is refused, and the next deposit creates at once', async () => {
    // prepare: the step has read the deposit when the caller cancels it; the cancel finds no claim
    // to give back, and the step takes it after; the bank's list then times out (a retry to write)
    const w = world();
    const read = await atStep(w);
    await cancelDeposit(
      { depositId: read.id, accessToken: credentials.accessToken, userSecret: credentials.userSecret },
      w.contexts.cancel(),
    );
    w.provider.answer('listBeneficiaries', answers.unknown());

    // act: the late step, from its read before the cancel; then the next deposit of the connection
    await ensureBeneficiary(read, w.contexts.ensureBeneficiary());
    const claimAfterLate = { ...w.table.claimItems.get(claimKey) };
    const next = await atStep(w);
    creates(w, 'ben-1');
    await run(w, next);

    // assess: the late step gave the claim back (it had stayed live for its whole life, some two
    // minutes, every other deposit of the connection waiting: seen end to end on a loaded machine);
    // the next deposit created the beneficiary, once
    expect(w.table.current(read.id)).toMatchObject({ status: 'failed', failure: { type: 'CANCELLED' } });
    expect(claimAfterLate).toMatchObject({ depositId: read.id, state: 'creating', claimedAt: 0 });
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    expect(w.table.current(next.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-1' });
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', depositId: next.id });
  });
});
