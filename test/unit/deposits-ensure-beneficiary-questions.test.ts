/**
 * The ensure-beneficiary step through the fakes of its ports: a question from the bank at the
 * creation, and an answered creation refused as existing.
 */
import { describe, expect, it } from 'vitest';
import { ensureBeneficiary, LOOK_UP_AGAIN_MS } from '#shared/deposits/steps/ensure-beneficiary';
import {
  answers,
  asked,
  banks,
  claimKey,
  credentials,
  eventFields,
  ownerKey,
  question,
  settings,
  world,
} from '../support/deposit-world.ts';
import {
  answered,
  answering,
  atStep,
  beneficiaryOf,
  created,
  listed,
  lookUpWhenDue,
} from '../support/ensure-beneficiary.ts';

describe('ensure-beneficiary', () => {
  describe('a question from the bank', () => {
    it('waits for the caller: the question kept, the input lease held, the expiry armed, the claim fresh', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      const expiresAt = w.clock.now() + settings.inputTtlMs;
      w.provider.answer('listBeneficiaries', listed()).answer('createBeneficiary', answers.question('op-q'));

      await ensureBeneficiary(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'user_input_required',
        step: 'ensure-beneficiary',
        version: 1,
        pendingInput: { providerOperationId: 'op-q', userInputs: asked, expiresAt },
      });
      expect(w.table.claimItems.get(claimKey)).toMatchObject({
        state: 'creating',
        depositId: deposit.id,
        claimedAt: expiresAt,
      });
      expect(w.table.leaseItems.get(ownerKey)).toEqual({ holder: `${deposit.id}#own`, until: expiresAt });
      expect(ctx.queues.sent).toEqual([
        {
          message: { depositId: deposit.id, step: 'ensure-beneficiary', version: 1, kind: 'expire-input' },
          delaySeconds: settings.inputTtlMs / 1000,
        },
      ]);
      expect(w.events.published).toEqual([
        expect.objectContaining({
          id: `${deposit.id}.v1`,
          type: 'deposit.user_input_required',
          data: {
            ...eventFields(deposit, w.clock.now()),
            status: 'user_input_required',
            step: 'ensure-beneficiary',
            version: 1,
            userInputs: question,
            inputExpiresAt: new Date(expiresAt).toISOString(),
          },
        }),
      ]);
    });

    it('arms a long expiry as a schedule to its own queue', async () => {
      const w = world();
      const ctx = { ...w.contexts.ensureBeneficiary(), settings: { ...settings, inputTtlMs: 3_600_000 } };
      const deposit = await atStep(w);
      const expiresAt = w.clock.now() + 3_600_000;
      w.provider.answer('listBeneficiaries', listed()).answer('createBeneficiary', answers.question('op-q'));

      await ensureBeneficiary(deposit, ctx);

      expect(ctx.queues.sent).toEqual([]);
      expect([...ctx.scheduler.schedules.values()]).toEqual([
        {
          at: expiresAt,
          message: { depositId: deposit.id, step: 'ensure-beneficiary', version: 1, kind: 'expire-input' },
        },
      ]);
      expect(w.table.claimItems.get(claimKey)?.claimedAt).toBe(expiresAt);
    });

    it('answers with the sealed answers: createBeneficiary gets them, and the list gives the id', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await answering(w, banks.beneficiary, 'dep_answered');
      const until = deposit.pendingInput?.expiresAt ?? 0;
      w.table.leaseItems.set(ownerKey, { holder: `${deposit.id}#own`, until });
      w.provider
        .answer('createBeneficiary', created('ref-1'))
        .answer('listBeneficiaries', listed({ id: 'ben-1' }));

      await ensureBeneficiary(deposit, ctx);

      // No list before the answered creation; one after it, without the answers.
      expect(w.provider.callsOf('listBeneficiaries')).toEqual([[credentials]]);
      expect(w.provider.callsOf('createBeneficiary')).toEqual([
        [credentials, beneficiaryOf(w), { id: 'op-q', userInputs: answered }],
      ]);
      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({ status: 'initialized', step: 'transfer', beneficiaryId: 'ben-1' });
      expect(after.pendingInput).toBeUndefined();
      expect(after.sealedAnswers).toBeUndefined();
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', beneficiaryId: 'ben-1' });
      expect([...w.table.leaseItems.values()].map((held) => held.holder)).toEqual([
        w.table.current(deposit.id).leaseHeld,
      ]);
    });

    it("a second run of the deposit while the first holds the connection writes nothing: the first one's outcome lands", async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await answering(w, banks.beneficiary, 'dep_twice');
      // The bank stopped waiting just before the answers came: nothing ran, the creation asks again.
      let secondRun: Promise<void> | undefined;
      const port = ctx.provider;
      ctx.provider = {
        ...port,
        createBeneficiary: async (...args) => {
          // A copy of the deposit's message (or the sweeper's re-drive) runs while this call is out.
          secondRun = ensureBeneficiary(deposit, ctx);
          await secondRun;
          return port.createBeneficiary(...args);
        },
      };
      w.provider.answer('createBeneficiary', answers.refusal('USER_INPUT_EXPIRED'));

      await ensureBeneficiary(deposit, ctx);

      // The first run's outcome is the deposit's: the question asked again, the answers spent once.
      expect(secondRun).toBeDefined();
      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      const after = w.table.current(deposit.id);
      expect(after.history.map((entry) => entry.note)).not.toContain('connection busy');
      expect(after).toMatchObject({
        status: 'initialized',
        step: 'ensure-beneficiary',
        tallies: { reasks: 1 },
      });
      expect(after.sealedAnswers).toBeUndefined();
      // The second run only sent the step again, for when the first run's lease ends (if it died).
      expect(ctx.queues.sent[0]).toMatchObject({
        message: { depositId: deposit.id, step: 'ensure-beneficiary', version: deposit.version, kind: 'run' },
      });
      expect(ctx.queues.sent[0]?.delaySeconds).toBeGreaterThanOrEqual(
        settings.leaseMs / 1000 - settings.leasePatienceMs / 1000 - 1,
      );
    });

    it('gives the connection back when the deposit moved on while the bank asked', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      // Another worker moved the deposit on since this one read it (a duplicate message).
      w.table.put({ ...deposit, version: 1 });
      w.provider.answer('listBeneficiaries', listed()).answer('createBeneficiary', answers.question('op-q'));

      await ensureBeneficiary(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({ version: 1, status: 'initialized' });
      expect(w.table.leaseItems.size).toBe(0);
      expect(ctx.queues.sent).toEqual([]);
      expect(w.events.published).toEqual([]);
    });
  });

  /**
   * An answered creation that the bank refuses as BENEFICIARY_ALREADY_EXISTS (the typical case: the
   * answered call's outcome was lost, and its retry finds the beneficiary made) looks in the list,
   * with the spent answers dropped: at once at a bank that lists new ones, after the cool-down at one
   * that hides them. (Both failed before the fix: the step never listed after an answered creation.)
   */

  describe('an answered creation refused as existing', () => {
    it('at a bank that hides new ones, is looked up in the list after the cool-down', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await answering(w, banks.hiddenCoolDown);
      w.provider
        .answer('createBeneficiary', answers.refusal('BENEFICIARY_ALREADY_EXISTS'))
        .answer('listBeneficiaries', listed({ id: 'ben-9', status: 'approved' }));
      await ensureBeneficiary(deposit, ctx);
      const waiting = w.table.current(deposit.id);
      expect(waiting.pendingInput).toBeUndefined();
      expect(waiting.sealedAnswers).toBeUndefined();
      w.clock.set(waiting.beneficiaryWork?.lookupAt ?? 0);

      await ensureBeneficiary(waiting, ctx);

      expect(w.provider.callsOf('listBeneficiaries')).toHaveLength(1);
      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-9' });
    });

    it('at a bank that lists new ones, is looked up in the list at once', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await answering(w, banks.beneficiary);
      w.provider
        .answer('createBeneficiary', answers.refusal('BENEFICIARY_ALREADY_EXISTS'))
        .answer('listBeneficiaries', listed({ id: 'ben-9', status: 'approved' }));

      await ensureBeneficiary(deposit, ctx);
      const lookup = w.table.current(deposit.id);
      expect(
        ctx.queues.sent.map((sent) => [sent.message.step, sent.message.version, sent.delaySeconds]),
      ).toEqual([['ensure-beneficiary', lookup.version, 0]]);
      await ensureBeneficiary(lookup, ctx);

      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-9' });
    });

    /**
     * INVALID_OPERATION_ID to the answers: the operation no longer waits for them. It may have run
     * (the answered call's outcome lost) or not (the bank stopped waiting, and a retry of that call
     * whose outcome was lost used the wait up): the list decides. (The second failed before: the
     * deposit failed BENEFICIARY_UNRESOLVED, "created but not listed", for a creation never made.)
     */
    it('spent answers, and the list shows it: the creation ran, and is used', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await answering(w, banks.beneficiary);
      w.provider
        .answer('createBeneficiary', answers.refusal('INVALID_OPERATION_ID'))
        .answer('listBeneficiaries', listed({ id: 'ben-9', status: 'approved' }));

      await ensureBeneficiary(deposit, ctx);
      await lookUpWhenDue(w, deposit.id, ctx);

      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-9' });
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', beneficiaryId: 'ben-9' });
      expect(w.table.claimItems.get(claimKey)?.unconfirmed).toBeUndefined();
    });

    it('spent answers: the look-up waits as long as after a plain creation, so a list that lags shows it', async () => {
      // prepare: the answered creation ran (its outcome lost); the bank lists it only a while later
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await answering(w, banks.beneficiary);
      w.provider.answer('createBeneficiary', answers.refusal('INVALID_OPERATION_ID'));

      // act
      await ensureBeneficiary(deposit, ctx);

      // assess: no look-up yet; it is armed for when a plain creation's would be
      const waiting = w.table.current(deposit.id);
      expect(w.provider.callsOf('listBeneficiaries')).toEqual([]);
      expect(waiting.beneficiaryWork?.lookupAt).toBe(w.clock.now() + LOOK_UP_AGAIN_MS);
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', unconfirmed: true });
      expect(ctx.queues.sent.map((sent) => [sent.message.step, sent.delaySeconds])).toEqual([
        ['ensure-beneficiary', LOOK_UP_AGAIN_MS / 1000],
      ]);
    });

    it('spent answers, and the list does not show it: it never ran, and is created again (asked again)', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await answering(w, banks.beneficiary);
      w.provider
        .answer('createBeneficiary', answers.refusal('INVALID_OPERATION_ID'), answers.question('op-r'))
        .answer('listBeneficiaries', listed(), listed());

      await ensureBeneficiary(deposit, ctx);
      await lookUpWhenDue(w, deposit.id, ctx);
      const again = w.table.current(deposit.id);

      expect(again).toMatchObject({
        status: 'initialized',
        step: 'ensure-beneficiary',
        tallies: { reasks: 1 },
      });
      expect(again.history.at(-1)?.note).toBe('the answered creation did not run: creating it again');
      expect(again.beneficiaryWork?.lookupAt).toBeUndefined();
      expect(w.table.heldClaim(claimKey)).toBeUndefined();

      await ensureBeneficiary(again, ctx);

      // A new creation, without the spent answers: the bank asks its question again.
      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(2);
      expect(w.provider.callsOf('createBeneficiary')[1]?.[2]).toBeUndefined();
      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'user_input_required',
        pendingInput: { providerOperationId: 'op-r' },
      });
    });
  });

  /**
   * The creation's answer is never read for the beneficiary's id (the spec does not say its
   * `reference` is the id): the list, matched on the wallet's account identifiers, gives it.
   * (These failed before: the reference was taken for the id, and a creation without one failed.)
   */
});
