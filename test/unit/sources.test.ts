/**
 * Payment sources through the fakes of the deposit's ports: a source runs the deposit's steps and
 * stops ready before the transfer; its caller's view and events; its shared wake-up, which deposits
 * (and other sources) follow instead of arming their own; the sources API's start, read and list.
 *
 * The sources API and the owner's cancel: `sources-api.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { giveUp } from '#shared/deposits/journey/transitions';
import { sourceView } from '#shared/deposits/model/sources';
import { cancelSource } from '#shared/deposits/requests/cancel';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { resolveBank } from '#shared/deposits/steps/resolve-bank';
import { transfer } from '#shared/deposits/steps/transfer';
import { waitCooldown } from '#shared/deposits/steps/wait-cooldown';
import {
  answers,
  bankKey,
  banks,
  claimKey,
  coolingUntil,
  credentials,
  metadata,
  ownerKey,
  settings,
  type World,
  world,
} from '../support/deposit-world.ts';

describe('a source runs the deposit steps', () => {
  it('resolve-bank: checks the currency but no minimum, and remembers the bank for 30 days', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.resolveBank();
    const src = await w.source();
    w.provider.answer('getMetadata', metadata({ beneficiaryCoolDownPeriod: { value: 1, unit: 'hrs' } }));

    // act
    await resolveBank(src, ctx);

    // assess
    expect(w.table.current(src.id)).toMatchObject({ status: 'initialized', step: 'ensure-beneficiary' });
    expect(w.table.bankItems.get(bankKey)?.until).toBe(w.clock.now() + settings.sourceBankMemoryMs);
  });

  it('at the transfer: ready without any provider call, and its caller hears source.ready', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const src = await w.source({
      step: 'transfer',
      version: 5,
      bank: banks.beneficiary,
      beneficiaryId: 'ben-1',
    });

    // act
    await transfer(src, ctx);

    // assess
    const after = w.table.current(src.id);
    expect(after).toMatchObject({ status: 'done', step: 'completed' });
    expect(after.sealedCredentials).toBeUndefined();
    expect(after.transfer?.attempt).toBeUndefined();
    expect(w.provider.calls).toEqual([]);
    expect(w.events.published).toEqual([
      expect.objectContaining({
        id: `${src.id}.v6`,
        type: 'source.ready',
        depositId: src.id,
        data: expect.objectContaining({ status: 'ready', step: 'completed', version: 6 }),
      }),
    ]);
    expect(sourceView(after)).toMatchObject({ sourceID: src.id, status: 'ready', success: true });
  });

  it('woken before its cool-down ends, waits again: a source is ready only once the bank allows transfers', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const until = w.clock.now() + 60_000;
    const src = await w.source({ ...coolingUntil(until) });

    await transfer(src, ctx);

    expect(w.table.current(src.id)).toMatchObject({ status: 'initialized', step: 'wait-cooldown' });
    expect(ctx.queues.sent.map((sent) => sent.delaySeconds)).toEqual([60]);
  });

  it('cooling down: its caller hears source.cooling_down with readyAt, and reads cooling_down', async () => {
    // prepare: the beneficiary is listed, approved later (the bank's cool-down)
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const src = await w.source({ step: 'ensure-beneficiary', version: 2, bank: banks.coolDown });
    const listed = { id: 'ben-9', accountNumber: '0331234567890123456', status: 'pending' };
    w.provider.answer('listBeneficiaries', answers.done({ beneficiaries: [listed] }));
    const readyAt = new Date(w.clock.now() + banks.coolDown.coolDownMs).toISOString();

    // act
    await ensureBeneficiary(src, ctx);

    // assess
    const after = w.table.current(src.id);
    expect(w.events.published).toEqual([
      expect.objectContaining({
        type: 'source.cooling_down',
        data: expect.objectContaining({ status: 'cooling_down', readyAt }),
      }),
    ]);
    expect(w.events.published[0]?.data).not.toHaveProperty('resumesAt');
    expect(sourceView(after)).toMatchObject({ status: 'cooling_down', readyAt });
  });
});

/** A wake-up armed by source `by` for `at`, followed by a deposit at each step that follows one. */
function followedBy(w: World, by: string, at: number) {
  w.table.wakeItems.set(claimKey, {
    by,
    at,
    followers: [
      { depositId: 'dep_a', version: 3, step: 'transfer' },
      { depositId: 'dep_b', version: 7, step: 'ensure-beneficiary' },
    ],
  });
}

/** The messages (and delays) that wake the followers of `followedBy`, each at its step and version. */
const followersWoken = [
  [{ depositId: 'dep_a', step: 'transfer', version: 3, kind: 'run' }, 0],
  [{ depositId: 'dep_b', step: 'ensure-beneficiary', version: 7, kind: 'run' }, 0],
];

describe('the shared wake-up', () => {
  it('a cooling source arms it; a deposit waiting for the same instant follows it and arms nothing', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.waitCooldown();
    const until = w.clock.now() + 3_600_000;
    const cooling = coolingUntil(until);
    const src = await w.source(cooling);
    const dep = await w.deposit(cooling);

    // act
    await waitCooldown(src, ctx);
    await waitCooldown(dep, ctx);

    // assess: one schedule (the source's), the deposit among its followers
    expect([...ctx.scheduler.schedules.values()].map((s) => s.message.depositId)).toEqual([src.id]);
    expect(ctx.queues.sent).toEqual([]);
    expect(w.table.wakeItems.get(claimKey)).toEqual({
      by: src.id,
      at: until,
      followers: [{ depositId: dep.id, version: dep.version, step: 'transfer' }],
    });
  });

  it('a deposit waiting for another instant arms its own; without a source, deposits arm their own', async () => {
    const w = world();
    const ctx = w.contexts.waitCooldown();
    const until = w.clock.now() + 3_600_000;
    const src = await w.source({ ...coolingUntil(until) });
    const later = await w.deposit({
      step: 'wait-cooldown',
      bank: banks.coolDown,
      beneficiaryId: 'ben-1',
      cooldownUntil: until + 60_000,
    });
    const other = await w.deposit({
      ownerKey: 'owner-2',
      step: 'wait-cooldown',
      bank: banks.coolDown,
      beneficiaryId: 'ben-2',
      cooldownUntil: until,
    });

    await waitCooldown(src, ctx);
    await waitCooldown(later, ctx);
    await waitCooldown(other, ctx);

    expect([...ctx.scheduler.schedules.values()].map((s) => s.message.depositId).sort()).toEqual(
      [src.id, later.id, other.id].sort(),
    );
    expect(w.table.wakeItems.get(claimKey)?.followers).toEqual([]);
  });

  it('the ready source wakes its followers, each at its own step and version', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const until = w.clock.now();
    const src = await w.source({ ...coolingUntil(until), version: 4 });
    followedBy(w, src.id, until);

    // act: the source's own wake-up, at the transfer
    await transfer(src, ctx);

    // assess
    expect(w.table.current(src.id)).toMatchObject({ status: 'done' });
    expect(ctx.queues.sent.map((sent) => [sent.message, sent.delaySeconds])).toEqual(followersWoken);
    expect(w.table.wakeItems.has(claimKey)).toBe(false);
  });

  it('a cancelled source hands its followers back at once, each at its own step and version, to arm their own wake-ups', async () => {
    // prepare: a source cooling for an hour, followed by a deposit at each step that follows
    const w = world();
    const until = w.clock.now() + 3_600_000;
    const src = await w.source({ ...coolingUntil(until), version: 4 });
    followedBy(w, src.id, until);
    const ctx = w.contexts.cancel();

    // act
    await cancelSource({ sourceId: src.id, ...credentials }, ctx);

    // assess: cancelled; each follower woken now (early, it waits again, on a wake-up of its own)
    expect(w.table.current(src.id)).toMatchObject({ status: 'failed', failure: { type: 'CANCELLED' } });
    expect(ctx.followers.queues.sent.map((sent) => [sent.message, sent.delaySeconds])).toEqual(
      followersWoken,
    );
    expect(w.table.wakeItems.has(claimKey)).toBe(false);
  });

  it('a followed source that fails at its look-up wakes its followers too, the claim it held freed first', async () => {
    // prepare: a source at the look-up of its hidden beneficiary, holding the claim, followed
    const w = world();
    const src = await w.source({ step: 'ensure-beneficiary', version: 5, bank: banks.hiddenCoolDown });
    await w.table.claims.claim(
      {
        ownerKey,
        walletAccountId: 'wallet-aed',
        depositId: src.id,
        state: 'creating',
        claimedAt: w.clock.now(),
      },
      0,
    );
    followedBy(w, src.id, w.clock.now());
    const ctx = w.contexts.ensureBeneficiary();

    // act: the step gives up on it (its look-up kept failing)
    await giveUp(ctx, src, 'the look-up kept failing');

    // assess
    expect(w.table.current(src.id)).toMatchObject({ status: 'failed', failure: { type: 'STEP_FAILED' } });
    expect(w.table.heldClaim(claimKey)).toBeUndefined();
    expect(ctx.queues.sent.map((sent) => [sent.message, sent.delaySeconds])).toEqual(followersWoken);
    expect(w.table.wakeItems.has(claimKey)).toBe(false);
  });

  it("ensure-beneficiary: a deposit finding the claim held by a source until its look-up follows the source's wake-up", async () => {
    // prepare: the source holds the claim until it looks the beneficiary up, at `at`
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const at = w.clock.now() + 86_400_000;
    w.table.claimItems.set(claimKey, {
      ownerKey,
      walletAccountId: 'wallet-aed',
      state: 'creating',
      depositId: 'src_1',
      claimedAt: at,
    });
    w.table.wakeItems.set(claimKey, { by: 'src_1', at, followers: [] });
    const dep = await w.deposit({ step: 'ensure-beneficiary', version: 2, bank: banks.hiddenCoolDown });

    // act
    await ensureBeneficiary(dep, ctx);

    // assess
    const after = w.table.current(dep.id);
    expect(after).toMatchObject({
      version: 3,
      beneficiaryWork: { sleepsUntil: at },
      checkAt: at + settings.stallAfterMs,
    });
    expect(w.table.wakeItems.get(claimKey)?.followers).toEqual([
      { depositId: dep.id, version: 3, step: 'ensure-beneficiary' },
    ]);
    expect(ctx.scheduler.schedules.size).toBe(0);
    expect(ctx.queues.sent).toEqual([]);
    expect(w.provider.calls).toEqual([]);
  });
});
