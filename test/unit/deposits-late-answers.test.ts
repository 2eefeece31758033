/**
 * The transfer's questions and reads, where a wrong reading loses the deposit or moves money twice,
 * through the fakes of the ports and a manual clock:
 *   - the bank's wait for the caller's answer ran out (`USER_INPUT_EXPIRED`, from the answered
 *     submission, from a synchronous answer, or from the operation read back): nothing moved, so the
 *     transfer asks again, bounded by the re-asks of every step;
 *   - a question found by reading the operation back is timed from the submission (when the bank
 *     began waiting), and one found too late to be answered in time is asked again;
 *   - a refusal of the read belongs to the transfer only when it names the transfer's operation:
 *     anything else (a 429, a 403, an envelope naming no operation or another) is read again.
 *
 * Here the bank's wait that ran out; spent answers, questions found by reading back and refusals of
 * the read: `deposits-late-reads.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { MAX_REASKS } from '#shared/deposits/journey/input';
import { reconcile } from '#shared/deposits/steps/reconcile';
import { transfer } from '#shared/deposits/steps/transfer';
import { answers, banks, initialized, question, world } from '../support/deposit-world.ts';
import { answeredAtTransfer, atReconcile, expired } from '../support/late-answers.ts';

describe('the bank stopped waiting for the answer: the transfer asks again', () => {
  it('the answered submission refused USER_INPUT_EXPIRED: nothing moved, the transfer again without the answers', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await answeredAtTransfer(w);
    w.provider.answer('createTransfer', expired('op-q'));

    // act
    await transfer(deposit, ctx);

    // assess: the attempt went with the refusal; the transfer's message again, no failure, no event
    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({ status: 'initialized', step: 'transfer', tallies: { reasks: 1 } });
    expect(after.transfer?.attempt).toBeUndefined();
    expect(after.pendingInput).toBeUndefined();
    expect(after.sealedAnswers).toBeUndefined();
    expect(after.sealedCredentials).toBeDefined();
    expect(after.history.at(-1)?.note).toBe('answers refused (USER_INPUT_EXPIRED): asking again');
    expect(ctx.queues.sent.map((sent) => sent.message)).toEqual([
      { depositId: deposit.id, step: 'transfer', version: after.version, kind: 'run' },
    ]);
    expect(w.events.types()).toEqual([]);
  });

  it('the inline transfer answering USER_INPUT_EXPIRED at once (no `sync`): asks again too', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await answeredAtTransfer(w, { bank: banks.noBeneficiary, beneficiaryId: undefined });
    w.provider.answer('createAutoflowTransfer', expired('op-q'));

    await transfer(deposit, ctx);

    expect(w.table.current(deposit.id)).toMatchObject({
      status: 'initialized',
      step: 'transfer',
      tallies: { reasks: 1 },
    });
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['transfer']);
  });

  it(`past ${MAX_REASKS} re-asks the deposit fails USER_INPUT_EXPIRED, as every step does`, async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await answeredAtTransfer(w, { tallies: { reasks: MAX_REASKS } });
    w.provider.answer('createTransfer', expired('op-q'));

    await transfer(deposit, ctx);

    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({ status: 'failed', failure: { type: 'USER_INPUT_EXPIRED' } });
    expect(after.transfer?.attempt).toBeUndefined();
    expect(w.events.types()).toEqual(['deposit.failed']);
  });

  it('the operation read back failed USER_INPUT_EXPIRED: the transfer again, the attempt forgotten', async () => {
    const w = world();
    const ctx = w.contexts.reconcile();
    const deposit = await atReconcile(w, 15_000);
    w.provider.answer('getOperation', expired('op-7'));

    await reconcile(deposit, ctx);

    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({ status: 'initialized', step: 'transfer', tallies: { reasks: 1 } });
    expect(after.transfer?.attempt).toBeUndefined();
    expect(after.transfer?.operationId).toBeUndefined();
    expect(ctx.queues.sent.map((sent) => sent.message)).toEqual([
      { depositId: deposit.id, step: 'transfer', version: after.version, kind: 'run' },
    ]);
    expect(w.events.types()).toEqual([]);
  });

  it('three lost reads at an OTP bank with a short wait: asked again, answered, one transfer, done', async () => {
    // prepare: the bank accepts the transfer, its reads are lost three times, by then its wait has run out
    const w = world();
    const transferCtx = w.contexts.transfer();
    const reconcileCtx = w.contexts.reconcile();
    const deposit = await w.deposit({
      step: 'transfer',
      version: 4,
      bank: banks.beneficiary,
      beneficiaryId: 'ben-1',
    });
    w.provider.answer('createTransfer', initialized('op-7'), initialized('op-8'));
    w.provider.answer(
      'getOperation',
      answers.unknown('server_error'),
      answers.unknown('timeout'),
      answers.unknown('server_error'),
      expired('op-7'),
      answers.question('op-8'),
    );

    // act: each step as its message arrives, at the time it is due
    const run = async () => {
      const current = w.table.current(deposit.id);
      if (current.step === 'reconcile') {
        w.clock.advance(Math.max(0, (current.transfer?.pollAt ?? 0) - w.clock.now()));
        await reconcile(current, reconcileCtx);
      } else await transfer(current, transferCtx);
    };
    for (let call = 0; call < 10 && w.table.current(deposit.id).status === 'initialized'; call += 1) {
      await run();
    }
    const asked = w.table.current(deposit.id);

    // assess: the question of the second submission, shown with its time counted from that submission
    expect(asked).toMatchObject({
      status: 'user_input_required',
      step: 'transfer',
      tallies: { reasks: 1 },
      pendingInput: { providerOperationId: 'op-8' },
    });
    expect(w.provider.callsOf('createTransfer')).toHaveLength(2);
    expect(w.provider.callsOf('getOperation')).toHaveLength(5);
    expect(w.events.types()).toEqual(['deposit.user_input_required']);

    // act: the caller answers; the transfer answers the question and the bank carries it out
    const sealedAnswers = await w.vault.seal('answers', deposit.id, [{ ...question[0], answer: '123456' }]);
    w.table.put({ ...asked, status: 'initialized', sealedAnswers, version: asked.version + 1 });
    w.provider.answer('createTransfer', answers.done({ reference: 'REF-1' }, 'op-8'));
    await transfer(w.table.current(deposit.id), transferCtx);

    // assess
    expect(w.table.current(deposit.id)).toMatchObject({ status: 'done', reference: 'REF-1' });
    expect(w.provider.callsOf('createTransfer')).toHaveLength(3);
    expect(w.provider.callsOf('createTransfer')[2]?.[2]).toMatchObject({ id: 'op-8' });
  });
});

/**
 * Spent answers on an answered transfer: the bank refuses them INVALID_OPERATION_ID, as no operation
 * waits for them. The answered transfer may have run (its outcome lost with a run that died): its
 * own record is read, and nothing else says "nothing moved". (These failed before: the deposit
 * failed INVALID_OPERATION_ID, its attempt erased, a caller free to send the money again.)
 */
