/** The ensure-beneficiary step through the fakes of its ports: the failures. */
import { describe, expect, it } from 'vitest';
import { cancelDeposit } from '#shared/deposits/requests/cancel';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { answers, claimKey, credentials, settings, world } from '../support/deposit-world.ts';
import { atStep, created, listed } from '../support/ensure-beneficiary.ts';

describe('ensure-beneficiary', () => {
  describe('failures', () => {
    it('fails a refusal with its type, and frees the claim so that another deposit may create', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const refused = await atStep(w);
      const other = await atStep(w);
      w.provider
        .answer('listBeneficiaries', listed(), listed(), listed({ id: 'ben-2' }))
        .answer('createBeneficiary', answers.refusal('INVALID_IBAN'), created('ref-2'));

      await ensureBeneficiary(refused, ctx);

      const after = w.table.current(refused.id);
      expect(after).toMatchObject({ status: 'failed', step: 'completed', failure: { type: 'INVALID_IBAN' } });
      expect(after.sealedCredentials).toBeUndefined();
      // Freed: claimable at once, what fitted before its creation kept for the next holder.
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'creating', claimedAt: 0 });
      expect(w.table.leaseItems.size).toBe(0);
      expect(w.events.published).toEqual([
        expect.objectContaining({ id: `${refused.id}.v1`, type: 'deposit.failed' }),
      ]);

      await ensureBeneficiary(other, ctx);

      expect(w.table.claimItems.get(claimKey)).toMatchObject({
        state: 'created',
        depositId: other.id,
        beneficiaryId: 'ben-2',
      });
      expect(w.table.current(other.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-2' });
    });

    it('a holder cancelled after a creation that did not answer leaves what fitted before it: the next tells the masked entry apart', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const holder = await atStep(w);
      const other = await atStep(w);
      // The bank lists accounts masked: nothing fits before the holder's creation; after it, one entry.
      w.provider
        .answer('listBeneficiaries', listed(), listed({ id: 'ben-9', accountNumber: '****3456' }))
        .answer('createBeneficiary', answers.unknown('timeout'));

      // The holder's creation lands at the bank, its answer is lost: a retry later, the claim held.
      await ensureBeneficiary(holder, ctx);
      expect(w.table.current(holder.id)).toMatchObject({
        step: 'ensure-beneficiary',
        stepCounters: { retries: 1 },
      });
      // Then its owner cancels it.
      await cancelDeposit(
        { depositId: holder.id, accessToken: credentials.accessToken, userSecret: credentials.userSecret },
        w.contexts.cancel(),
      );
      expect(w.table.current(holder.id)).toMatchObject({ status: 'failed', failure: { type: 'CANCELLED' } });

      await ensureBeneficiary(w.table.current(other.id), ctx);

      // The one new masked entry is the holder's creation: used, never created again nor ambiguous.
      expect(w.table.current(other.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-9' });
      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', beneficiaryId: 'ben-9' });
    });

    it('retries an unknown outcome later, counted, and fails PROVIDER_UNAVAILABLE past the limit', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      let deposit = await atStep(w);
      w.provider.answer(
        'listBeneficiaries',
        ...Array.from({ length: settings.maxRetries + 1 }, () => answers.unknown('timeout')),
      );

      for (let attempt = 1; attempt <= settings.maxRetries; attempt += 1) {
        await ensureBeneficiary(deposit, ctx);
        deposit = w.table.current(deposit.id);
        expect(deposit).toMatchObject({
          status: 'initialized',
          step: 'ensure-beneficiary',
          stepCounters: { retries: attempt },
        });
        expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'creating', depositId: deposit.id });
      }
      await ensureBeneficiary(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'failed',
        failure: { type: 'PROVIDER_UNAVAILABLE' },
      });
      expect(
        ctx.queues.sent.map((sent) => [sent.message.step, sent.message.version, sent.delaySeconds]),
      ).toEqual([
        ['ensure-beneficiary', 1, 3],
        ['ensure-beneficiary', 2, 5],
        ['ensure-beneficiary', 3, 7],
      ]);
      expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
      // Freed: claimable at once, what fitted before its creation kept for the next holder.
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'creating', claimedAt: 0 });
      expect(w.table.leaseItems.size).toBe(0);
    });
  });
});
