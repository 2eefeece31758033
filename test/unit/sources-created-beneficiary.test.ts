/**
 * At a bank that hides new beneficiaries, the beneficiary a payment source created exists at the
 * bank from its creation on, though its id shows in the list only once the cool-down has passed. The
 * claim records that creation and when the look-up can succeed; ending the source (cancelled, or
 * failed) keeps it, so the deposits that followed the source (or come after it) look the beneficiary
 * up at that instant instead of creating a second one and waiting a second cool-down. Through the
 * fakes of the ports and a manual clock. (The first test failed before the fix: the cancel freed the
 * claim, and the woken follower created the beneficiary again.)
 */
import { describe, expect, it } from 'vitest';
import type { Deposit } from '#shared/deposits/model/deposit';
import { cancelSource } from '#shared/deposits/requests/cancel';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { waitCooldown } from '#shared/deposits/steps/wait-cooldown';
import { answers, banks, claimKey, credentials, walletListing, world } from '../support/deposit-world.ts';

type World = ReturnType<typeof world>;

/**
 * A source that created the beneficiary at the hiding bank and waits its cool-down (its shared
 * wake-up armed), with a deposit following it at ensure-beneficiary: what the cancel interrupts.
 */
async function sourceCoolingWithFollower(w: World) {
  const ensure = w.contexts.ensureBeneficiary();
  const src = await w.source({ step: 'ensure-beneficiary', bank: banks.hiddenCoolDown });
  const lookupAt = w.clock.now() + banks.hiddenCoolDown.coolDownMs + 1_000;
  w.provider.answer('createBeneficiary', answers.done({ jobID: 'j', success: true, status: 'done' }));
  await ensureBeneficiary(src, ensure);
  await waitCooldown(w.table.current(src.id), w.contexts.waitCooldown());
  const dep = await w.deposit({ step: 'ensure-beneficiary', bank: banks.hiddenCoolDown });
  await ensureBeneficiary(dep, ensure);
  expect(w.table.wakeItems.get(claimKey)?.followers.map((f) => f.depositId)).toEqual([dep.id]);
  return { src, dep, lookupAt };
}

/** The wake-ups armed for `deposit` (schedules and delayed messages), as [step, instant]. */
function wakesOf(ctx: ReturnType<World['contexts']['ensureBeneficiary']>, w: World, deposit: Deposit) {
  const scheduled = [...ctx.scheduler.schedules.values()]
    .filter((s) => s.message.depositId === deposit.id)
    .map((s) => [s.message.step, s.at]);
  const delayed = ctx.queues.sent
    .filter((s) => s.message.depositId === deposit.id)
    .map((s) => [s.message.step, w.clock.now() + s.delaySeconds * 1000]);
  return [...scheduled, ...delayed];
}

describe('a created beneficiary outlives the source that created it', () => {
  it('cancelled mid-cool-down: its follower looks the beneficiary up at the instant it shows, never creates it again', async () => {
    // prepare: the source created the beneficiary and cools down; a deposit follows its wake-up
    const w = world();
    const { src, dep, lookupAt } = await sourceCoolingWithFollower(w);
    w.clock.advance(3_600_000);

    // act: the owner cancels the source; its follower, woken at once, and then at its instant
    const cancel = w.contexts.cancel();
    await cancelSource({ sourceId: src.id, ...credentials }, cancel);
    expect(cancel.followers.queues.sent.map((s) => s.message.depositId)).toEqual([dep.id]);
    const ensure = w.contexts.ensureBeneficiary();
    await ensureBeneficiary(w.table.current(dep.id), ensure);
    const woken = wakesOf(ensure, w, dep);
    w.clock.set(lookupAt);
    w.provider.answer('listBeneficiaries', walletListing('ben-4'));
    await ensureBeneficiary(w.table.current(dep.id), ensure);

    // assess: one creation in all; the record of it survived the cancel; the follower's own wake-up
    // came at the look-up's instant (not earlier, not a cool-down later), where it found the id
    expect(w.table.current(src.id)).toMatchObject({ status: 'failed', failure: { type: 'CANCELLED' } });
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    expect(woken).toEqual([['ensure-beneficiary', lookupAt]]);
    expect(w.provider.callsOf('listBeneficiaries')).toHaveLength(1);
    expect(w.table.current(dep.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-4' });
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', beneficiaryId: 'ben-4' });
  });

  it('the record the cancel keeps: created, its look-up instant, no id yet; a later deposit waits for it', async () => {
    // prepare
    const w = world();
    const { src, lookupAt } = await sourceCoolingWithFollower(w);
    await cancelSource({ sourceId: src.id, ...credentials }, w.contexts.cancel());
    const late = await w.deposit({ step: 'ensure-beneficiary', bank: banks.hiddenCoolDown });
    const ensure = w.contexts.ensureBeneficiary();

    // act: a deposit that comes after the cancel
    await ensureBeneficiary(late, ensure);

    // assess: no call to the bank; it sleeps until the look-up can succeed
    const record = w.table.claimItems.get(claimKey);
    expect(record).toMatchObject({ state: 'created', depositId: src.id, lookupAt });
    expect(record?.beneficiaryId).toBeUndefined();
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    expect(w.provider.callsOf('listBeneficiaries')).toHaveLength(0);
    const [wake] = wakesOf(ensure, w, late);
    expect(wake?.[1]).toBeGreaterThanOrEqual(lookupAt);
  });

  it('failed at its look-up (the bank never listed it): the record is dropped, and the next deposit may create', async () => {
    // prepare: the source woken at its look-up; the bank does not list the beneficiary
    const w = world();
    const { src, lookupAt } = await sourceCoolingWithFollower(w);
    w.clock.set(lookupAt);
    w.provider.answer('listBeneficiaries', walletListing());

    // act
    await ensureBeneficiary(w.table.current(src.id), w.contexts.ensureBeneficiary());

    // assess
    expect(w.table.current(src.id)).toMatchObject({
      status: 'failed',
      failure: { type: 'BENEFICIARY_UNRESOLVED' },
    });
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    expect(w.table.claimItems.has(claimKey)).toBe(false);
  });
});
