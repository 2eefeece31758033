/** The ensure-beneficiary step through the fakes of its ports: the bank says the beneficiary exists. */
import { describe, expect, it } from 'vitest';
import { depositView } from '#shared/deposits/model/views';
import { ensureBeneficiary, LOOK_UP_AGAIN_MS } from '#shared/deposits/steps/ensure-beneficiary';
import { answers, banks, claimKey, settings, world } from '../support/deposit-world.ts';
import { atStep, claimOf, listed } from '../support/ensure-beneficiary.ts';

describe('ensure-beneficiary', () => {
  describe('the bank says the beneficiary exists', () => {
    it('at a bank that hides new ones: waits the cool-down, then looks it up', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w, banks.hiddenCoolDown);
      const lookupAt = w.clock.now() + banks.hiddenCoolDown.coolDownMs + 1_000;
      w.provider.answer('createBeneficiary', answers.refusal('BENEFICIARY_ALREADY_EXISTS'));

      await ensureBeneficiary(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'initialized',
        step: 'wait-cooldown',
        version: 1,
        cooldownUntil: lookupAt,
        beneficiaryWork: { lookupAt: lookupAt },
      });
      expect(w.table.claimItems.get(claimKey)).toMatchObject({
        state: 'created',
        depositId: deposit.id,
        lookupAt,
      });
      expect(ctx.queues.sent).toEqual([
        {
          message: { depositId: deposit.id, step: 'wait-cooldown', version: 1, kind: 'run' },
          delaySeconds: 0,
        },
      ]);
      // The caller hears that the deposit waits for the bank's cool-down, and until when.
      expect(w.events.types()).toEqual(['deposit.cooling_down']);
      expect(w.table.leaseItems.size).toBe(0);

      // The record of the creation keeps another deposit from creating it, long after the stale
      // limit: it sleeps until the look-up, with one schedule.
      const other = await atStep(w, banks.hiddenCoolDown);
      w.clock.advance(settings.claimStaleMs * 10);
      await ensureBeneficiary(other, ctx);
      expect(
        [...ctx.scheduler.schedules.values()].map((schedule) => [schedule.message.depositId, schedule.at]),
      ).toEqual([[other.id, lookupAt + 1_000]]);
      expect(w.provider.calls).toHaveLength(1);
    });

    it.for([
      { label: 'a delayed message', waitMs: 600_000, delaySeconds: 600, scheduled: false },
      { label: 'a schedule', waitMs: 7_200_000, delaySeconds: undefined, scheduled: true },
    ])(
      'woken before the look-up time: re-arms the wake-up as $label and does nothing else',
      async ({ waitMs, delaySeconds, scheduled }) => {
        const w = world();
        const ctx = w.contexts.ensureBeneficiary();
        const lookupAt = w.clock.now() + waitMs;
        const deposit = await atStep(w, banks.hiddenCoolDown, { beneficiaryWork: { lookupAt: lookupAt } });
        const claim = claimOf(w, { depositId: deposit.id, claimedAt: lookupAt });

        await ensureBeneficiary(deposit, ctx);

        const message = { depositId: deposit.id, step: 'ensure-beneficiary', version: 0, kind: 'run' };
        expect(w.provider.calls).toEqual([]);
        expect(w.table.writes).toEqual([]);
        expect(w.table.claimItems.get(claimKey)).toEqual(claim);
        expect(ctx.queues.sent).toEqual(scheduled ? [] : [{ message, delaySeconds }]);
        expect([...ctx.scheduler.schedules.values()]).toEqual(scheduled ? [{ at: lookupAt, message }] : []);
      },
    );

    // The claim records the creation before the deposit's own write records its wait: a run that died
    // between the two (or whose write was refused) leaves the wait on the claim alone. The next run
    // records it, as the lost write would have: else its check time missed the wait (the sweeper
    // re-drove it again and again, each run only re-arming the wake-up) and its caller never heard
    // of the cool-down. (Both cases failed before: nothing was written.)
    it.for([
      {
        label: 'a bank that hides new ones: it cools down until the look-up, and its caller hears it',
        bank: banks.hiddenCoolDown,
        waitMs: banks.hiddenCoolDown.coolDownMs + 1_000,
        step: 'wait-cooldown',
      },
      {
        label: 'a bank that lists new ones: its look-up time is recorded, one wake-up armed',
        bank: banks.beneficiary,
        waitMs: LOOK_UP_AGAIN_MS,
        step: 'ensure-beneficiary',
      },
    ])('its creation on the claim but its own wait lost, at $label', async ({ bank, waitMs, step }) => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const lookupAt = w.clock.now() + waitMs;
      const deposit = await atStep(w, bank);
      const claim = claimOf(w, { depositId: deposit.id, state: 'created', claimedAt: lookupAt, lookupAt });

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.calls).toEqual([]);
      expect(w.table.claimItems.get(claimKey)).toEqual(claim);
      const waiting = w.table.current(deposit.id);
      expect(waiting).toMatchObject({
        step,
        version: 1,
        beneficiaryWork: { lookupAt },
        checkAt: lookupAt + settings.stallAfterMs,
      });
      const coolsDown = step === 'wait-cooldown';
      expect(waiting.cooldownUntil).toBe(coolsDown ? lookupAt : undefined);
      expect(w.events.types()).toEqual(coolsDown ? ['deposit.cooling_down'] : []);
      if (coolsDown)
        expect(depositView(waiting, w.clock.now()).resumesAt).toBe(new Date(lookupAt).toISOString());
      expect(w.table.leaseItems.size).toBe(0);
    });

    it('after the look-up time: lists, and uses the match', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const lookupAt = w.clock.now() - 1;
      const deposit = await atStep(w, banks.hiddenCoolDown, { beneficiaryWork: { lookupAt: lookupAt } });
      claimOf(w, { depositId: deposit.id, claimedAt: lookupAt });
      w.provider.answer('listBeneficiaries', listed({ id: 'ben-9', status: 'approved' }));

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
      expect(w.table.claimItems.get(claimKey)).toMatchObject({
        state: 'created',
        depositId: deposit.id,
        beneficiaryId: 'ben-9',
      });
      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-9' });
      expect(after.beneficiaryWork?.lookupAt).toBeUndefined();
      expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['transfer']);
    });

    it('after the look-up time, still not listed: fails BENEFICIARY_UNRESOLVED and frees the claim', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const lookupAt = w.clock.now() - 1;
      const deposit = await atStep(w, banks.hiddenCoolDown, { beneficiaryWork: { lookupAt: lookupAt } });
      claimOf(w, { depositId: deposit.id, claimedAt: lookupAt });
      w.provider
        .answer('listBeneficiaries', listed())
        .answer('createBeneficiary', answers.refusal('BENEFICIARY_ALREADY_EXISTS'));

      await ensureBeneficiary(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'failed',
        step: 'completed',
        failure: { type: 'BENEFICIARY_UNRESOLVED' },
      });
      // Freed: claimable at once, what fitted before its creation kept for the next holder.
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'creating', claimedAt: 0 });
      expect(w.table.leaseItems.size).toBe(0);
      expect(ctx.scheduler.schedules.size).toBe(0);
      expect(w.events.types()).toEqual(['deposit.failed']);
    });

    it('at a bank that lists new ones: fails BENEFICIARY_UNRESOLVED at once', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w, banks.coolDown);
      w.provider
        .answer('listBeneficiaries', listed())
        .answer('createBeneficiary', answers.refusal('BENEFICIARY_ALREADY_EXISTS'));

      await ensureBeneficiary(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'failed',
        failure: { type: 'BENEFICIARY_UNRESOLVED' },
      });
      expect(w.table.current(deposit.id).beneficiaryWork?.lookupAt).toBeUndefined();
      expect(ctx.scheduler.schedules.size).toBe(0);
      expect(ctx.queues.sent).toEqual([]);
      // Freed: claimable at once, what fitted before its creation kept for the next holder.
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'creating', claimedAt: 0 });
    });
  });
});
