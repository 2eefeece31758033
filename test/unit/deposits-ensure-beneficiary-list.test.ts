/**
 * The ensure-beneficiary step through the fakes of its ports: the list first at a bank that lists
 * new beneficiaries, and the beneficiary's id taken from the list, not from the creation.
 */
import { describe, expect, it } from 'vitest';
import { depositView } from '#shared/deposits/model/views';
import { ensureBeneficiary, LOOK_UP_AGAIN_MS } from '#shared/deposits/steps/ensure-beneficiary';
import { answers, banks, claimKey, credentials, ownerKey, world } from '../support/deposit-world.ts';
import { answered, atStep, beneficiaryOf, created, listed } from '../support/ensure-beneficiary.ts';

describe('ensure-beneficiary', () => {
  describe('the list first, at a bank that lists new beneficiaries', () => {
    it('uses an approved match by account number, without a cool-down', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w, banks.coolDown);
      const now = w.clock.now();
      w.provider.answer(
        'listBeneficiaries',
        listed(
          { id: 'other-account', accountNumber: '999' },
          { id: 'other-name', name: 'Someone Else', accountNumber: '0331234567890999999' },
          { id: 'ben-9', status: 'approved' },
        ),
      );

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.callsOf('listBeneficiaries')).toEqual([[credentials, undefined]]);
      expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
      expect(w.table.claimItems.get(claimKey)).toEqual({
        ownerKey,
        walletAccountId: 'wallet-aed',
        state: 'created',
        depositId: deposit.id,
        claimedAt: now,
        beneficiaryId: 'ben-9',
        cooldownUntil: now,
      });
      expect(w.table.current(deposit.id)).toMatchObject({
        step: 'transfer',
        beneficiaryId: 'ben-9',
        cooldownUntil: now,
        beneficiaryWork: { sendDetails: true },
      });
      expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['transfer']);
      expect(w.events.published).toEqual([]);
      // The call's lease, handed to the transfer with the move.
      expect([...w.table.leaseItems.values()].map((held) => held.holder)).toEqual([
        w.table.current(deposit.id).leaseHeld,
      ]);
    });

    it("waits the bank's cool-down after a pending match", async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w, banks.coolDown);
      const cooldownUntil = w.clock.now() + banks.coolDown.coolDownMs;
      w.provider.answer('listBeneficiaries', listed({ id: 'ben-9', status: 'pending' }));

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
      expect(w.table.claimItems.get(claimKey)).toMatchObject({
        state: 'created',
        beneficiaryId: 'ben-9',
        cooldownUntil,
      });
      expect(w.table.current(deposit.id)).toMatchObject({ step: 'wait-cooldown', cooldownUntil });
      expect(w.events.types()).toEqual(['deposit.cooling_down']);
      expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['wait-cooldown']);
    });

    it('creates the beneficiary when nothing matches, finds its id in the list, and starts its cool-down', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w, banks.coolDown);
      const cooldownUntil = w.clock.now() + banks.coolDown.coolDownMs;
      // The creation's reference is not the beneficiary's id: the list says which id it has.
      w.provider
        .answer(
          'listBeneficiaries',
          listed({ id: 'other-account', accountNumber: '999' }),
          listed({ id: 'other-account', accountNumber: '999' }, { id: 'ben-1', status: 'pending' }),
        )
        .answer('createBeneficiary', created('ref-77'));

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.callsOf('createBeneficiary')).toEqual([[credentials, beneficiaryOf(w), undefined]]);
      expect(w.provider.callsOf('listBeneficiaries')).toEqual([[credentials, undefined], [credentials]]);
      expect(w.table.claimItems.get(claimKey)).toMatchObject({
        state: 'created',
        depositId: deposit.id,
        beneficiaryId: 'ben-1',
        cooldownUntil,
      });
      expect(w.table.current(deposit.id)).toMatchObject({
        step: 'wait-cooldown',
        beneficiaryId: 'ben-1',
        cooldownUntil,
        beneficiaryWork: { sendDetails: true },
      });
      expect(w.table.leaseItems.size).toBe(0);
    });
  });

  it('creates at once, without a list, at a bank that hides new beneficiaries; looks its id up after the cool-down', async () => {
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await atStep(w, banks.hiddenCoolDown);
    const lookupAt = w.clock.now() + banks.hiddenCoolDown.coolDownMs + 1_000;
    const resumesAt = new Date(lookupAt).toISOString();
    w.provider
      .answer('createBeneficiary', created('ref-1'))
      .answer('listBeneficiaries', listed({ id: 'other', accountNumber: '999' }, { id: 'ben-4' }));

    await ensureBeneficiary(deposit, ctx);

    expect(w.provider.callsOf('listBeneficiaries')).toEqual([]);
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    // The caller hears the deposit cools down, until the look-up; the claim is held until then.
    const waiting = w.table.current(deposit.id);
    expect(waiting).toMatchObject({
      step: 'wait-cooldown',
      cooldownUntil: lookupAt,
      beneficiaryWork: { lookupAt: lookupAt },
    });
    expect(waiting.beneficiaryId).toBeUndefined();
    expect(depositView(waiting, w.clock.now()).resumesAt).toBe(resumesAt);
    expect(w.events.published).toEqual([
      expect.objectContaining({ type: 'deposit.cooling_down', data: expect.objectContaining({ resumesAt }) }),
    ]);
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', lookupAt });
    expect(w.table.claimItems.get(claimKey)?.beneficiaryId).toBeUndefined();
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['wait-cooldown']);

    w.clock.set(lookupAt);
    await ensureBeneficiary(waiting, ctx);

    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', beneficiaryId: 'ben-4' });
    expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-4' });
  });

  describe("the beneficiary's id comes from the list, not from the creation", () => {
    it.for([
      { label: 'a done answer without reference', answer: created() },
      {
        label: 'an answer still initialized',
        answer: { status: 'initialized', id: 'op-1', response: { reference: 'ref-1' } },
      },
    ])('looks up $label in the list', async ({ answer }) => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      w.provider
        .answer('listBeneficiaries', listed(), listed({ id: 'ben-5' }))
        .answer('createBeneficiary', answer);

      await ensureBeneficiary(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-5' });
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', beneficiaryId: 'ben-5' });
      expect([...w.table.leaseItems.values()].map((held) => held.holder)).toEqual([
        w.table.current(deposit.id).leaseHeld,
      ]);
    });

    it('matches a listed IBAN as well as the account number', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      const iban = beneficiaryOf(w)?.iban ?? '';
      w.provider.answer('listBeneficiaries', listed({ id: 'ben-iban', accountNumber: iban.toLowerCase() }));

      await ensureBeneficiary(deposit, ctx);

      expect(iban).not.toBe('');
      expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
      expect(w.table.current(deposit.id)).toMatchObject({ beneficiaryId: 'ben-iban' });
    });

    it.for(['BENEFICIARY_EXISTS', 'DUPLICATE_BENEFICIARY'])(
      'takes the refusal %s as a sign that it exists: the same look-up',
      async (type) => {
        const w = world();
        const ctx = w.contexts.ensureBeneficiary();
        const deposit = await atStep(w, banks.hiddenCoolDown);
        w.provider.answer('createBeneficiary', answers.refusal(type));

        await ensureBeneficiary(deposit, ctx);

        expect(w.table.current(deposit.id)).toMatchObject({
          status: 'initialized',
          beneficiaryWork: { lookupAt: w.clock.now() + banks.hiddenCoolDown.coolDownMs + 1_000 },
        });
      },
    );

    it('a creation the list does not show yet: looked up again later, then failed, never created twice', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      w.provider
        .answer('listBeneficiaries', listed(), listed(), listed({ id: 'other', accountNumber: '999' }))
        .answer('createBeneficiary', created('ref-1'));

      await ensureBeneficiary(deposit, ctx);

      const waiting = w.table.current(deposit.id);
      const lookupAt = w.clock.now() + LOOK_UP_AGAIN_MS;
      expect(waiting).toMatchObject({ status: 'initialized', beneficiaryWork: { lookupAt: lookupAt } });
      expect(w.events.published).toEqual([]);
      w.clock.set(lookupAt);
      await ensureBeneficiary(waiting, ctx);

      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.provider.callsOf('listBeneficiaries')).toHaveLength(3);
      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'failed',
        failure: { type: 'BENEFICIARY_UNRESOLVED' },
      });
      expect(w.table.claimItems.has(claimKey)).toBe(false);
    });

    it('a question on the list after the creation: asks the caller, and the answered list is a look-up', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      w.provider
        .answer('listBeneficiaries', listed(), answers.question('op-list'))
        .answer('createBeneficiary', created('ref-1'));

      await ensureBeneficiary(deposit, ctx);

      const asking = w.table.current(deposit.id);
      expect(asking).toMatchObject({
        status: 'user_input_required',
        pendingInput: { providerOperationId: 'op-list', operation: 'list' },
        beneficiaryWork: { lookupAt: w.clock.now() },
      });
      const withAnswers = { ...asking, sealedAnswers: await w.vault.seal('answers', asking.id, answered) };
      w.table.put(withAnswers);
      w.provider.answer('listBeneficiaries', listed({ id: 'ben-6', status: 'approved' }));

      await ensureBeneficiary(withAnswers, ctx);

      expect(w.provider.callsOf('listBeneficiaries').at(-1)).toEqual([
        credentials,
        { id: 'op-list', userInputs: answered },
      ]);
      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-6' });
    });
  });
});
