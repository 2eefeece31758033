/**
 * A beneficiary claim looks abandoned only once its holder has had its full chance: a holder that is
 * merely late (it waits for a busy connection, or its message was lost and the sweeper re-drives it
 * `stallAfterMs` after it last moved) keeps its claim, and the beneficiary is created once; a holder
 * that never runs again loses it. Through the fakes of the ports and a manual clock. (The first two
 * failed before the fix: the claim went stale `claimStaleMs` after it was taken, whatever its
 * holder did, and a second deposit created the beneficiary again.)
 *
 * Copies of the step (a refresh, a wait for the lease, the lease given back) and a claim given up:
 * `deposits-claim-copies.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { sweep } from '#shared/deposits/background/sweeper';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { atStep, connectionBusy, creates, run } from '../support/claim-staleness.ts';
import { banks, claimKey, ownerKey, settings, world } from '../support/deposit-world.ts';

describe('a live but late claim holder is not taken over', () => {
  it('its message lost, re-driven by the sweeper after the stall time: it keeps the claim, one creation', async () => {
    // prepare: the holder claims, finds the connection busy, and its requeued message is lost
    const w = world();
    const holder = await atStep(w);
    connectionBusy(w);
    await run(w, holder);
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'creating', depositId: holder.id });
    w.table.leaseItems.clear();
    const other = await atStep(w);

    // act: another deposit comes past the claim's old stale limit; then the sweeper re-drives the holder
    w.clock.advance(settings.claimStaleMs + 1_000);
    await run(w, other);
    w.clock.set(w.table.current(holder.id).checkAt ?? 0);
    const sweeping = w.contexts.sweep();
    await sweep(sweeping);
    expect(sweeping.queues.sent.map((sent) => sent.message.depositId)).toContain(holder.id);
    creates(w, 'ben-1');
    await run(w, holder);
    // The other's wake-up, when it fires.
    w.clock.set(Math.max(w.clock.now(), w.table.current(other.id).beneficiaryWork?.sleepsUntil ?? 0));
    await run(w, other);

    // assess
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', depositId: holder.id });
    for (const deposit of [holder, other]) {
      expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-1' });
    }
  });

  it('waiting for a busy connection longer than the stall time, try after try: each try refreshes its claim', async () => {
    // prepare: the holder claims; the connection stays busy through many of its tries
    const w = world();
    const holder = await atStep(w);
    connectionBusy(w);
    const claimedAt = w.clock.now();
    while (w.clock.now() - claimedAt <= settings.stallAfterMs + settings.claimStaleMs) {
      await run(w, holder);
      w.clock.advance(30_000);
    }
    const other = await atStep(w);

    // act
    await run(w, other);

    // assess: the other sleeps; the claim is the holder's, refreshed at its last try
    expect(w.provider.calls).toEqual([]);
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'creating', depositId: holder.id });
    expect(w.table.claimItems.get(claimKey)?.claimedAt).toBeGreaterThan(w.clock.now() - 60_000);
    expect(w.table.current(other.id).beneficiaryWork?.sleepsUntil).toBeGreaterThan(w.clock.now());
    expect(w.table.current(holder.id)).toMatchObject({ status: 'initialized', step: 'ensure-beneficiary' });
  });
});

describe('a dead claim holder is still taken over', () => {
  it('once it has not run for the stall time and the margin: the other deposit creates the beneficiary', async () => {
    // prepare: the holder claims, finds the connection busy, and never runs again
    const w = world();
    const holder = await atStep(w);
    connectionBusy(w);
    await run(w, holder);
    const claimedAt = w.table.claimItems.get(claimKey)?.claimedAt ?? 0;
    w.table.leaseItems.clear();
    const early = await atStep(w);
    const other = await atStep(w);

    // act: a deposit just before the claim goes stale, another just after
    w.clock.set(claimedAt + settings.stallAfterMs + settings.claimStaleMs);
    await run(w, early);
    const before = w.table.claimItems.get(claimKey)?.depositId;
    w.clock.advance(1);
    creates(w, 'ben-2');
    await run(w, other);

    // assess
    expect(before).toBe(holder.id);
    expect(w.table.current(early.id).beneficiaryWork?.sleepsUntil).toBeGreaterThan(claimedAt);
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', depositId: other.id });
    expect(w.table.current(other.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-2' });
  });
});

/**
 * A copy of the step (a duplicate message, a re-drive) refreshing the claim of its own deposit while
 * the live run holds the lease: it refreshes only the claim's time, conditionally, and never writes
 * the whole claim it read before the live run recorded which masked entries fitted before its
 * creation. (This failed before: the copy's whole write erased that record, and the deposit failed
 * BENEFICIARY_AMBIGUOUS.)
 */

describe('a copy of the step refreshing the claim', () => {
  it("refreshes its time only: the live run's record of what fitted before its creation stays", async () => {
    // prepare: the live run holds the lease and wrote what fitted before its creation; the copy read
    // the claim before that write
    const w = world();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
    const claimedAt = w.clock.now();
    const before = {
      ownerKey,
      walletAccountId: 'wallet-aed',
      state: 'creating' as const,
      depositId: deposit.id,
      claimedAt,
    };
    w.table.claimItems.set(claimKey, { ...before, fittingBeforeCreation: ['ben-x'] });
    w.table.leaseItems.set(ownerKey, { holder: `${deposit.id}#live`, until: claimedAt + 60_000 });
    w.clock.advance(2_000);
    const ctx = w.contexts.ensureBeneficiary();
    const copyCtx = { ...ctx, claims: { ...ctx.claims, get: async () => ({ ...before }) } };

    const ranAt = w.clock.now();

    // act
    await ensureBeneficiary(deposit, copyCtx);

    // assess
    expect(w.table.claimItems.get(claimKey)).toMatchObject({
      depositId: deposit.id,
      claimedAt: ranAt,
      fittingBeforeCreation: ['ben-x'],
    });
    expect(w.provider.callsOf('listBeneficiaries')).toEqual([]);
  });
});

/**
 * A copy of the step that waited for the connection's lease while the live run of its deposit held
 * it: once it takes the lease, the live run has written its outcome (the deposit moved on), and the
 * copy's view is stale. It calls nothing. (This failed before: at a bank that hides new
 * beneficiaries the copy created the beneficiary a second time; at one that masks accounts it could
 * record the new entry as one that fitted before the creation, and fail BENEFICIARY_AMBIGUOUS.)
 */
