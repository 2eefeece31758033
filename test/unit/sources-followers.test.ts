/**
 * The followers of a payment source's shared wake-up are never trapped, through the fakes of the
 * ports and a manual clock:
 *   - a follower joins only a wake-up whose instant is still ahead, and a source never joins its
 *     own: a deposit re-driven after its cool-down, or a source whose schedule was lost, arms its own;
 *   - every path that ends a source (given up at any step, failed at the create route, cancelled)
 *     frees its claim and wakes its followers;
 *   - a finished source that died before waking its followers wakes them when a message reaches it;
 *   - a failure whose own write lost (another writer moved the deposit first) frees nothing.
 */
import { describe, expect, it } from 'vitest';
import { handleStepMessage } from '#shared/deposits/journey/step-messages';
import { type FailContext, fail, giveUp, ownLease } from '#shared/deposits/journey/transitions';
import { wakeFollowers } from '#shared/deposits/journey/wake-ups';
import type { Deposit } from '#shared/deposits/model/deposit';
import { waitCooldown } from '#shared/deposits/steps/wait-cooldown';
import { banks, coolingUntil, ownerKey, world } from '../support/deposit-world.ts';

type World = ReturnType<typeof world>;

const claimKey = `${ownerKey}#wallet-aed`;
const HOUR = 3_600_000;

/** A wake-up armed by `by` for `at`, with one deposit following it at the transfer. */
function followed(w: World, by: string, at: number) {
  w.table.wakeItems.set(claimKey, {
    by,
    at,
    followers: [{ depositId: 'dep_follower', version: 3, step: 'transfer' }],
  });
}

const followerWoken = { depositId: 'dep_follower', step: 'transfer', version: 3, kind: 'run' };

describe('joining a shared wake-up', () => {
  it('a deposit re-driven after its cool-down ended does not rejoin the wake-up nobody took: it goes on at once', async () => {
    // prepare: the source that armed the wake-up died; its instant has passed
    const w = world();
    const ctx = w.contexts.waitCooldown();
    const at = w.clock.now() + HOUR;
    followed(w, 'src_dead', at);
    const deposit = await w.deposit(coolingUntil(at));
    w.clock.advance(HOUR + 120_000);

    // act: the sweeper's re-drive of its wait
    await waitCooldown(deposit, ctx);

    // assess: its own wake-up, due now; the dead item gained no follower
    expect(ctx.queues.sent).toEqual([
      {
        message: { depositId: deposit.id, step: 'transfer', version: deposit.version, kind: 'run' },
        delaySeconds: 0,
      },
    ]);
    expect(w.table.wakeItems.get(claimKey)?.followers).toHaveLength(1);
  });

  it('a source whose own schedule was lost never follows itself: re-driven, it arms its schedule again', async () => {
    // prepare: the source armed its wake-up; its schedule is lost
    const w = world();
    const ctx = w.contexts.waitCooldown();
    const at = w.clock.now() + HOUR;
    const src = await w.source(coolingUntil(at));
    await waitCooldown(src, ctx);
    ctx.scheduler.schedules.clear();

    // act: re-driven before its instant
    await waitCooldown(src, ctx);

    // assess
    expect([...ctx.scheduler.schedules.values()].map((s) => s.message.depositId)).toEqual([src.id]);
    expect(w.table.wakeItems.get(claimKey)).toEqual({ by: src.id, at, followers: [] });
  });
});

describe('every path that ends a source hands its followers on and frees its claim', () => {
  const contexts = ['resolveBank', 'ensureBeneficiary', 'transfer', 'reconcile', 'start', 'cancel'] as const;

  it.for(contexts)('given up (or failed) by the %s handler', async (name) => {
    // prepare: a source cooling down before its look-up, holding the claim, followed
    const w = world();
    const ctx: FailContext = w.contexts[name]();
    const at = w.clock.now() + HOUR;
    const src = await w.source({
      ...coolingUntil(at),
      beneficiaryId: undefined,
      beneficiaryWork: { lookupAt: at },
    });
    followed(w, src.id, at);
    w.table.claimItems.set(claimKey, {
      ownerKey,
      walletAccountId: 'wallet-aed',
      state: 'creating',
      depositId: src.id,
      claimedAt: at,
    });

    // act
    await giveUp(ctx, src, 'The wait-cooldown step failed on each of its 5 tries');

    // assess
    expect(w.table.current(src.id)).toMatchObject({ status: 'failed', failure: { type: 'STEP_FAILED' } });
    expect(w.table.heldClaim(claimKey)).toBeUndefined();
    expect(w.table.wakeItems.has(claimKey)).toBe(false);
    const sent = (ctx.followers.queues as unknown as { sent: { message: unknown }[] }).sent;
    expect(sent.map((s) => s.message)).toEqual([followerWoken]);
  });

  it('a finished source that died before waking its followers wakes them when a message reaches it', async () => {
    // prepare: the source's ready write landed; the step died before it took its followers
    const w = world();
    const ctx = w.contexts.transfer();
    const at = w.clock.now() + HOUR;
    const src = await w.source({ step: 'completed', status: 'done', version: 9 });
    followed(w, src.id, at);
    const handler = {
      step: 'transfer' as const,
      deposits: w.table.deposits,
      limits: { maxAttempts: 5, maxRedrives: 6, passesWithTime: () => false },
      run: async () => undefined,
      giveUp: async () => undefined,
      handOn: (finished: Deposit) => wakeFollowers(ctx.followers, finished),
    };

    // act: a late copy of its wake-up
    const outcome = await handleStepMessage(handler, {
      depositId: src.id,
      step: 'transfer',
      version: 8,
      kind: 'run',
    });

    // assess
    expect(outcome).toBe('gone');
    expect(ctx.queues.sent.map((s) => s.message)).toEqual([followerWoken]);
    expect(w.table.wakeItems.has(claimKey)).toBe(false);
  });
});

describe('a failure whose own write lost', () => {
  it('frees neither the claim nor the input lease: the writer that moved the deposit holds them', async () => {
    // prepare: a deposit creating the beneficiary, waiting for its caller under the input lease
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const stale = await w.deposit({ step: 'ensure-beneficiary', version: 4, bank: banks.beneficiary });
    w.table.claimItems.set(claimKey, {
      ownerKey,
      walletAccountId: 'wallet-aed',
      state: 'creating',
      depositId: stale.id,
      claimedAt: w.clock.now(),
    });
    w.table.leaseItems.set(ownerKey, { holder: ownLease(stale), until: w.clock.now() + 60_000 });
    // Another writer (the caller's answer, say) moved it on.
    w.table.put({ ...stale, version: 5 });

    // act
    const failed = await fail(ctx, stale, 'STEP_FAILED', 'late');

    // assess
    expect(failed).toBeUndefined();
    expect(w.table.current(stale.id).version).toBe(5);
    expect(w.table.claimItems.get(claimKey)?.depositId).toBe(stale.id);
    expect(w.table.leaseItems.get(ownerKey)?.holder).toBe(ownLease(stale));
  });
});
