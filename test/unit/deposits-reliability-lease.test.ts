/**
 * Ways a deposit could loop or stall, reproduced through the fakes: the connection's lease over the
 * list and the creation, and answers that reach no waiting operation.
 */
import { describe, expect, it } from 'vitest';
import { MAX_REASKS } from '#shared/deposits/journey/input';
import type { Deposit } from '#shared/deposits/model/deposit';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { resolveBank } from '#shared/deposits/steps/resolve-bank';
import {
  answers,
  banks,
  credentials,
  ownerKey,
  question,
  settings,
  type World,
  world,
} from '../support/deposit-world.ts';
import { listedBeneficiary } from '../support/reliability.ts';

describe('the connection lease over the list and the creation', () => {
  it('is renewed before the creation: each call has the whole lease time', async () => {
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
    const list = ctx.provider.listBeneficiaries;
    ctx.provider = {
      ...ctx.provider,
      // The list takes most of the lease time.
      listBeneficiaries: async (...args) => {
        w.clock.advance(settings.leaseMs - 1_000);
        return list(...args);
      },
    };
    let leaseLeftAtCreation = 0;
    const create = ctx.provider.createBeneficiary;
    ctx.provider.createBeneficiary = async (...args) => {
      leaseLeftAtCreation = (w.table.leaseItems.get(ownerKey)?.until ?? 0) - w.clock.now();
      return create(...args);
    };
    w.provider
      .answer(
        'listBeneficiaries',
        answers.done({ jobID: 'j', success: true, status: 'done', beneficiaries: [] }),
        listedBeneficiary('ben-3', 'Acme Wallet LLC', '0331234567890123456'),
      )
      .answer(
        'createBeneficiary',
        answers.done({ jobID: 'j', success: true, status: 'done', reference: 'ref-3' }),
      );

    await ensureBeneficiary(deposit, ctx);

    expect(leaseLeftAtCreation).toBeGreaterThanOrEqual(settings.leaseMs);
    expect(w.table.current(deposit.id).beneficiaryId).toBe('ben-3');
  });
});

/**
 * An answered read whose outcome was lost (the step died after the bank ran it): its answers reach
 * no waiting operation when the step runs again, and the bank refuses them (INVALID_OPERATION_ID).
 * A read is safe to make again: the answers are dropped and the bank asks again. An answered
 * creation is not made again: it is looked up. (Found by the chaos run; these failed before: each
 * deposit failed INVALID_OPERATION_ID.)
 */

describe('answers that reach no waiting operation', () => {
  const answered = [{ id: 'otp', index: 0, query: 'One-time password', answer: '123456' }];

  async function answering(w: World, step: Deposit['step'], operation: 'metadata' | 'list' | 'create') {
    const deposit = await w.deposit({
      step,
      ...(step === 'resolve-bank' ? {} : { bank: banks.beneficiary }),
      pendingInput: {
        providerOperationId: 'op-q',
        operation,
        userInputs: question,
        expiresAt: w.clock.now() + 60_000,
      },
    });
    return w.table.put({ ...deposit, sealedAnswers: await w.vault.seal('answers', deposit.id, answered) });
  }

  it('metadata: reads again without the answers, and the bank asks again', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    const deposit = await answering(w, 'resolve-bank', 'metadata');
    w.provider
      .answer('getMetadata', answers.refusal('INVALID_OPERATION_ID'))
      .answer('getMetadata', answers.question('op-again'));

    await resolveBank(deposit, ctx);
    const again = w.table.current(deposit.id);
    expect(again).toMatchObject({ status: 'initialized', step: 'resolve-bank', tallies: { reasks: 1 } });
    expect(again.pendingInput).toBeUndefined();
    expect(again.sealedAnswers).toBeUndefined();
    expect(ctx.queues.sent.map((sent) => [sent.message.step, sent.message.version])).toEqual([
      ['resolve-bank', again.version],
    ]);
    await resolveBank(again, ctx);

    expect(w.provider.callsOf('getMetadata')[1]).toEqual([credentials, undefined]);
    expect(w.table.current(deposit.id)).toMatchObject({
      status: 'user_input_required',
      pendingInput: { providerOperationId: 'op-again', operation: 'metadata' },
    });
  });

  it('the list: reads again without the answers', async () => {
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await answering(w, 'ensure-beneficiary', 'list');
    w.provider.answer('listBeneficiaries', answers.refusal('INVALID_OPERATION_ID'));

    await ensureBeneficiary(deposit, ctx);

    const again = w.table.current(deposit.id);
    expect(again).toMatchObject({
      status: 'initialized',
      step: 'ensure-beneficiary',
      tallies: { reasks: 1 },
    });
    expect(again.sealedAnswers).toBeUndefined();
    expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['ensure-beneficiary']);
  });

  it('the creation: looked up in the list, never created again', async () => {
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await answering(w, 'ensure-beneficiary', 'create');
    w.provider
      .answer('createBeneficiary', answers.refusal('INVALID_OPERATION_ID'))
      .answer('listBeneficiaries', listedBeneficiary('ben-8', 'Acme Wallet LLC', '0331234567890123456'));

    await ensureBeneficiary(deposit, ctx);
    const waiting = w.table.current(deposit.id);
    w.clock.set(waiting.beneficiaryWork?.lookupAt ?? 0);
    await ensureBeneficiary(waiting, ctx);

    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-8' });
  });

  it.for([
    { step: 'resolve-bank', operation: 'metadata', call: 'getMetadata' },
    { step: 'ensure-beneficiary', operation: 'list', call: 'listBeneficiaries' },
    { step: 'ensure-beneficiary', operation: 'create', call: 'createBeneficiary' },
  ] as const)(
    'answers the bank stopped waiting for ($operation, USER_INPUT_EXPIRED): the call again, and the bank asks again',
    async ({ step, operation, call }) => {
      const w = world();
      const deposit = await answering(w, step, operation);
      w.provider.answer(call, answers.refusal('USER_INPUT_EXPIRED'));

      const sent = [];
      if (step === 'resolve-bank') {
        const ctx = w.contexts.resolveBank();
        await resolveBank(deposit, ctx);
        sent.push(...ctx.queues.sent);
      } else {
        const ctx = w.contexts.ensureBeneficiary();
        await ensureBeneficiary(deposit, ctx);
        sent.push(...ctx.queues.sent);
      }

      const again = w.table.current(deposit.id);
      expect(again).toMatchObject({ status: 'initialized', step, tallies: { reasks: 1 } });
      expect(again.sealedAnswers).toBeUndefined();
      expect(again.pendingInput).toBeUndefined();
      expect(again.beneficiaryWork?.lookupAt).toBeUndefined();
      expect(sent.map((message) => [message.message.step, message.message.version])).toEqual([
        [step, again.version],
      ]);
    },
  );

  it('asks again at most MAX_REASKS times, then fails with the refusal; a question starts the retries over', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    const waiting = await answering(w, 'resolve-bank', 'metadata');
    const tired = w.table.put({ ...waiting, tallies: { reasks: MAX_REASKS } });
    w.provider.answer('getMetadata', answers.refusal('USER_INPUT_EXPIRED'));

    await resolveBank(tired, ctx);

    expect(w.table.current(tired.id)).toMatchObject({
      status: 'failed',
      failure: { type: 'USER_INPUT_EXPIRED' },
    });

    const retried = await w.deposit({ stepCounters: { retries: 4 } });
    w.provider.answer('getMetadata', answers.question('op-meta'));
    await resolveBank(retried, ctx);
    expect(w.table.current(retried.id)).toMatchObject({
      status: 'user_input_required',
      stepCounters: { retries: 0 },
    });
  });

  it('without answers, the refusal fails the deposit as before', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    const deposit = await w.deposit();
    w.provider.answer('getMetadata', answers.refusal('INVALID_OPERATION_ID'));

    await resolveBank(deposit, ctx);

    expect(w.table.current(deposit.id)).toMatchObject({
      status: 'failed',
      failure: { type: 'INVALID_OPERATION_ID' },
    });
  });
});
