/**
 * The ensure-beneficiary step through the fakes of its ports: our record of the creation, and the
 * creation's claim (who creates). The list, the bank's word that it exists, its questions and the
 * failures: the `deposits-ensure-beneficiary-*` files beside this one.
 */
import { describe, expect, it } from 'vitest';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { banks, claimKey, eventFields, settings, world } from '../support/deposit-world.ts';
import { atStep, claimOf, created, listed } from '../support/ensure-beneficiary.ts';

describe('ensure-beneficiary', () => {
  describe('our record says the beneficiary was created', () => {
    it('uses it without calling the provider, and waits out the cool-down still running', async () => {
      // prepare
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w, banks.coolDown);
      const cooldownUntil = w.clock.now() + 1_800_000;
      const claim = claimOf(w, { state: 'created', beneficiaryId: 'ben-1', cooldownUntil, used: true });

      // act
      await ensureBeneficiary(deposit, ctx);

      // assess
      expect(w.provider.calls).toEqual([]);
      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'initialized',
        step: 'wait-cooldown',
        version: 1,
        beneficiaryId: 'ben-1',
        cooldownUntil,
        beneficiaryWork: { sendDetails: false },
      });
      expect(w.events.published).toEqual([
        expect.objectContaining({
          id: `${deposit.id}.v1`,
          type: 'deposit.cooling_down',
          data: {
            ...eventFields(deposit, w.clock.now()),
            status: 'initialized',
            step: 'wait-cooldown',
            version: 1,
            resumesAt: new Date(cooldownUntil).toISOString(),
          },
        }),
      ]);
      expect(ctx.queues.sent).toEqual([
        {
          message: { depositId: deposit.id, step: 'wait-cooldown', version: 1, kind: 'run' },
          delaySeconds: 0,
        },
      ]);
      expect(ctx.scheduler.schedules.size).toBe(0);
      expect(w.table.claimItems.get(claimKey)).toEqual(claim);
    });

    it.for([
      { label: 'a cool-down that is over', cooldownUntil: -1, used: false, details: true },
      { label: 'no cool-down at all', cooldownUntil: undefined, used: true, details: false },
    ])(
      'goes straight to the transfer after $label; details only while never used',
      async ({ cooldownUntil, used, details }) => {
        const w = world();
        const ctx = w.contexts.ensureBeneficiary();
        const deposit = await atStep(w, banks.coolDown);
        claimOf(w, {
          state: 'created',
          beneficiaryId: 'ben-1',
          used,
          ...(cooldownUntil === undefined ? {} : { cooldownUntil: w.clock.now() + cooldownUntil }),
        });

        await ensureBeneficiary(deposit, ctx);

        expect(w.provider.calls).toEqual([]);
        expect(w.table.current(deposit.id)).toMatchObject({
          step: 'transfer',
          version: 1,
          beneficiaryId: 'ben-1',
          beneficiaryWork: { sendDetails: details },
        });
        expect(w.events.published).toEqual([]);
        expect(ctx.queues.sent.map((sent) => sent.message)).toEqual([
          { depositId: deposit.id, step: 'transfer', version: 1, kind: 'run' },
        ]);
      },
    );
  });

  describe('the creation claim', () => {
    it('sleeps, one recorded wake-up on its own queue, while another deposit holds a live claim', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      // Exactly as old as the stale limit (the stall time and the margin): still live.
      const claim = claimOf(w, {
        claimedAt: w.clock.now() - settings.stallAfterMs - settings.claimStaleMs,
      });

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.calls).toEqual([]);
      expect(ctx.queues.sent).toEqual([
        {
          message: { depositId: deposit.id, step: 'ensure-beneficiary', version: 1, kind: 'run' },
          delaySeconds: 1,
        },
      ]);
      expect(w.table.writes).toHaveLength(1);
      expect(w.table.current(deposit.id)).toMatchObject({
        version: 1,
        beneficiaryWork: { sleepsUntil: w.clock.now() + 1_000, claimWaits: 1 },
        checkAt: w.clock.now() + 1_000 + settings.stallAfterMs,
      });
      expect(w.table.claimItems.get(claimKey)).toEqual(claim);
      expect(w.table.leaseItems.size).toBe(0);
    });

    // The follower looks again after as long as the claim has gone unrefreshed, and a second, up to its
    // staleness: each claim starts the growth over, whatever the follower waited for those before.
    const claimLife = settings.stallAfterMs + settings.claimStaleMs;
    it.each([
      {
        case: 'a holder just past its own time (its question expired), after many waits',
        waits: 9,
        ageMs: 500,
        sleepMs: 1_500,
      },
      { case: 'a holder unrefreshed for 10 s', waits: 0, ageMs: 10_000, sleepMs: 11_000 },
      {
        case: 'a holder near the end of its life: until it goes stale',
        waits: 3,
        ageMs: claimLife - 2_000,
        sleepMs: 3_000,
      },
    ])('sleeps as long as the claim has gone unrefreshed: $case', async ({ waits, ageMs, sleepMs }) => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w, banks.beneficiary, { beneficiaryWork: { claimWaits: waits } });
      claimOf(w, { claimedAt: w.clock.now() - ageMs });

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.calls).toEqual([]);
      expect(w.table.current(deposit.id).beneficiaryWork).toEqual({
        sleepsUntil: w.clock.now() + sleepMs,
        claimWaits: waits + 1,
      });
    });

    it('takes over a stale claim (its holder died) and creates the beneficiary', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      // Not refreshed through the stall time and the margin: its holder did not run when re-driven.
      claimOf(w, { claimedAt: w.clock.now() - settings.stallAfterMs - settings.claimStaleMs - 1 });
      w.provider
        .answer('listBeneficiaries', listed(), listed({ id: 'ben-1' }))
        .answer('createBeneficiary', created('ref-1'));

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.table.claimItems.get(claimKey)).toMatchObject({
        state: 'created',
        depositId: deposit.id,
        beneficiaryId: 'ben-1',
      });
      expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-1' });
    });

    it('elects one creator among the deposits of one connection: one creation only', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const first = await atStep(w);
      const second = await atStep(w);
      let answerCreation: (value: unknown) => void = () => {};
      const creation = new Promise((resolve) => {
        answerCreation = resolve;
      });
      w.provider
        .answer('listBeneficiaries', listed(), listed({ id: 'ben-1' }))
        .answer('createBeneficiary', creation);

      // The first deposit is inside its creation call when the second one runs.
      const firstRun = ensureBeneficiary(first, ctx);
      for (let turn = 0; turn < 20 && w.provider.callsOf('createBeneficiary').length === 0; turn += 1) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      await ensureBeneficiary(second, ctx);
      expect(ctx.queues.sent.map((sent) => [sent.message.depositId, sent.message.step])).toEqual([
        [second.id, 'ensure-beneficiary'],
      ]);
      expect(w.table.current(second.id).version).toBe(1);

      answerCreation(created('ref-1'));
      await firstRun;
      // The second wakes after its short sleep, and finds the beneficiary created.
      w.clock.advance(1_000);
      await ensureBeneficiary(w.table.current(second.id), ctx);

      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.provider.callsOf('listBeneficiaries')).toHaveLength(2);
      for (const id of [first.id, second.id]) {
        expect(w.table.current(id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-1' });
      }
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', depositId: first.id });
    });
  });
});
