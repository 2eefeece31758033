/**
 * Ways a deposit could loop or stall at the bank, reproduced through the fakes: a question on the
 * metadata or the beneficiary list, a beneficiary the bank says is gone or wrong.
 */
import { describe, expect, it } from 'vitest';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { resolveBank } from '#shared/deposits/steps/resolve-bank';
import { transfer } from '#shared/deposits/steps/transfer';
import { answers, banks, ownerKey, question, world } from '../support/deposit-world.ts';
import { atTransfer, listedBeneficiary, metadata } from '../support/reliability.ts';

describe('a question on the metadata or on the beneficiary list', () => {
  const answered = [{ id: 'otp', index: 0, query: 'One-time password', answer: '123456' }];

  it('asks the caller when the bank asks on its metadata, and answers that operation', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    const deposit = await w.deposit();
    w.provider.answer('getMetadata', answers.question('op-meta'));

    await resolveBank(deposit, ctx);
    const waiting = w.table.current(deposit.id);
    expect(waiting).toMatchObject({
      status: 'user_input_required',
      step: 'resolve-bank',
      pendingInput: { providerOperationId: 'op-meta', operation: 'metadata' },
    });
    expect(ctx.queues.sent.map((sent) => [sent.message.step, sent.message.kind])).toEqual([
      ['resolve-bank', 'expire-input'],
    ]);
    expect(w.events.types()).toEqual(['deposit.user_input_required']);

    // The caller answers (as start.ts does): the same operation gets the answer, and the deposit goes on.
    const resumed = w.table.put({
      ...waiting,
      status: 'initialized',
      version: waiting.version + 1,
      sealedAnswers: await w.vault.seal('answers', deposit.id, answered),
    });
    w.provider.answer(
      'getMetadata',
      metadata({
        transferBounds: [{ minimum: 1, currency: { code: 'AED', name: 'Dirham' }, type: 'local' }],
      }),
    );
    await resolveBank(resumed, ctx);

    expect(w.provider.callsOf('getMetadata')[1]?.[1]).toEqual({
      id: 'op-meta',
      userInputs: [{ ...question[0], answer: '123456' }],
    });
    expect(w.table.current(deposit.id)).toMatchObject({ step: 'ensure-beneficiary', status: 'initialized' });
    expect(w.table.current(deposit.id).pendingInput).toBeUndefined();
    expect(w.table.current(deposit.id).sealedAnswers).toBeUndefined();
  });

  it('asks the caller when the bank asks on the beneficiary list, and answers the list, not a creation', async () => {
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
    w.provider.answer('listBeneficiaries', answers.question('op-list'));

    await ensureBeneficiary(deposit, ctx);
    const waiting = w.table.current(deposit.id);
    expect(waiting).toMatchObject({
      status: 'user_input_required',
      pendingInput: { providerOperationId: 'op-list', operation: 'list' },
    });
    expect(w.provider.callsOf('createBeneficiary')).toEqual([]);

    const resumed = w.table.put({
      ...waiting,
      status: 'initialized',
      version: waiting.version + 1,
      sealedAnswers: await w.vault.seal('answers', deposit.id, answered),
    });
    w.provider.answer(
      'listBeneficiaries',
      listedBeneficiary('ben-7', 'Acme Wallet LLC', '0331234567890123456'),
    );
    await ensureBeneficiary(resumed, ctx);

    expect(w.provider.callsOf('listBeneficiaries')[1]?.[1]).toEqual({
      id: 'op-list',
      userInputs: [{ ...question[0], answer: '123456' }],
    });
    expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
    expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-7' });
  });
});

describe('a beneficiary the bank says is gone or wrong', () => {
  it.for(['INVALID_BENEFICIARY_ID', 'BENEFICIARY_DETAILS_MISMATCH'])(
    'forgets our record of it on %s, so the next deposit registers it again',
    async (type, { expect }) => {
      const w = world();
      const ctx = w.contexts.transfer();
      const deposit = await atTransfer(w);
      w.table.claimItems.set(`${ownerKey}#wallet-aed`, {
        ownerKey,
        walletAccountId: 'wallet-aed',
        state: 'created',
        depositId: 'dep_first',
        claimedAt: 0,
        beneficiaryId: 'ben-1',
        used: true,
      });
      w.provider.answer('createTransfer', answers.refusal(type));

      await transfer(deposit, ctx);

      // Gone: this deposit registers it again itself; wrong: it fails.
      const gone = type === 'INVALID_BENEFICIARY_ID';
      expect(w.table.current(deposit.id)).toMatchObject(
        gone
          ? { status: 'initialized', step: 'ensure-beneficiary' }
          : { status: 'failed', failure: { type } },
      );
      expect(w.table.claimItems.has(`${ownerKey}#wallet-aed`)).toBe(false);
    },
  );

  it('keeps a record that names another beneficiary (registered again meanwhile)', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    const renewed = {
      ownerKey,
      walletAccountId: 'wallet-aed',
      state: 'created' as const,
      depositId: 'dep_other',
      claimedAt: 0,
      beneficiaryId: 'ben-2',
    };
    w.table.claimItems.set(`${ownerKey}#wallet-aed`, renewed);
    w.provider.answer('createTransfer', answers.refusal('INVALID_BENEFICIARY_ID'));

    await transfer(deposit, ctx);

    expect(w.table.claimItems.get(`${ownerKey}#wallet-aed`)).toEqual(renewed);
  });
});
