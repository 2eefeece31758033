/**
 * What the transfer's attempt record stands for, through the fakes: it is written only when the call
 * can be made (the credentials opened first), and the caller's answers that went with an accepted
 * submission do not stay on the record while its outcome is read; a 429 anywhere means later.
 */
import { describe, expect, it } from 'vitest';
import { resolveBank } from '#shared/deposits/steps/resolve-bank';
import { transfer } from '#shared/deposits/steps/transfer';
import { ProviderRefusal } from '#shared/provider/client';
import { banks, question, world } from '../support/deposit-world.ts';

const initialized = (id: string) => ({ status: 'initialized' as const, id, response: {} });

describe('the transfer attempt', () => {
  it('is not recorded when the credentials cannot be opened: a failed step, not an unknown outcome', async () => {
    // prepare: the key service refuses to open the credentials (injected: the fake vault opens them)
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({
      step: 'transfer',
      version: 2,
      bank: banks.beneficiary,
      beneficiaryId: 'ben-1',
    });
    ctx.vault = {
      open: async () => {
        throw new Error('KMS: the key is unavailable');
      },
    };

    // act
    await expect(transfer(deposit, ctx)).rejects.toThrow('KMS');

    // assess: nothing written, nothing called, the lease free: the queue's retry starts clean
    expect(w.table.writes).toEqual([]);
    expect(w.table.current(deposit.id).transferAttempt).toBeUndefined();
    expect(w.provider.calls).toEqual([]);
    expect(w.table.leaseItems.size).toBe(0);
  });

  it("the caller's answers spent on an accepted submission leave the record while its outcome is read", async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const id = 'dep_answering';
    const sealedAnswers = await w.vault.seal(id, [{ ...question[0], answer: '123456' }]);
    const deposit = await w.deposit({
      id,
      step: 'transfer',
      version: 4,
      bank: banks.beneficiary,
      beneficiaryId: 'ben-1',
      pendingInput: {
        providerOperationId: 'op-q',
        operation: 'transfer',
        userInputs: question,
        expiresAt: w.clock.now() + 60_000,
      },
      sealedAnswers,
    });
    w.provider.answer('createTransfer', initialized('op-q'));

    // act
    await transfer(deposit, ctx);

    // assess
    const after = w.table.current(id);
    expect(after).toMatchObject({ step: 'reconcile', transferOperationId: 'op-q' });
    expect(after.sealedAnswers).toBeUndefined();
    expect(after.pendingInput).toBeUndefined();
  });
});

describe('a 429 is "later", never "no"', () => {
  it('the transfer submission refused 429: nothing moved, the transfer again after a wait, the deposit not failed', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({
      step: 'transfer',
      version: 2,
      bank: banks.beneficiary,
      beneficiaryId: 'ben-1',
    });
    w.provider.answer('createTransfer', new ProviderRefusal('TOO_MANY_REQUESTS', 'Too many requests', 429));

    await transfer(deposit, ctx);

    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({ status: 'initialized', step: 'transfer', busyWaits: 1 });
    expect(after.transferAttempt).toBeUndefined();
    expect(ctx.queues.sent.map((sent) => [sent.message.step, sent.delaySeconds])).toEqual([['transfer', 1]]);
  });

  it('the metadata read refused with any type over a 429: asked again later', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    const deposit = await w.deposit();
    w.provider.answer('getMetadata', new ProviderRefusal('RATE_LIMITED', 'slow down', 429));

    await resolveBank(deposit, ctx);

    expect(w.table.current(deposit.id)).toMatchObject({
      status: 'initialized',
      step: 'resolve-bank',
      busyWaits: 1,
    });
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['resolve-bank']);
  });
});
