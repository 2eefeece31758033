/**
 * The transfer's questions and reads through the fakes of the ports and a manual clock: spent
 * answers on an answered transfer, a question found by reading the operation back, a refusal of the
 * read that is not a refusal of the transfer.
 */
import { describe, expect, it } from 'vitest';
import { MAX_REASKS, MIN_ANSWER_SHARE } from '#shared/deposits/journey/input';
import { reconcile } from '#shared/deposits/steps/reconcile';
import { transfer } from '#shared/deposits/steps/transfer';
import { answers, banks, settings, world } from '../support/deposit-world.ts';
import { answeredAtTransfer, atReconcile } from '../support/late-answers.ts';

describe('spent answers on an answered transfer', () => {
  it.for([
    { label: 'to a beneficiary', overrides: {}, call: 'createTransfer' },
    {
      label: 'inline',
      overrides: { bank: banks.noBeneficiary, beneficiaryId: undefined },
      call: 'createAutoflowTransfer',
    },
  ] as const)(
    '$label: the answered operation is read, the attempt kept, no failure',
    async ({ overrides, call }) => {
      // prepare
      const w = world();
      const ctx = w.contexts.transfer();
      const deposit = await answeredAtTransfer(w, overrides);
      w.provider.answer(call, answers.refusal('INVALID_OPERATION_ID'));

      // act
      await transfer(deposit, ctx);

      // assess
      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({
        status: 'initialized',
        step: 'reconcile',
        transfer: { operationId: 'op-q' },
      });
      expect(after.transfer?.attempt).toBeDefined();
      expect(after.sealedAnswers).toBeUndefined();
      expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['reconcile']);
      expect(w.events.types()).toEqual([]);
    },
  );

  it('its record says done: done with its reference, one submission', async () => {
    const w = world();
    const deposit = await answeredAtTransfer(w);
    w.provider.answer('createTransfer', answers.refusal('INVALID_OPERATION_ID'));
    w.provider.answer('getOperation', answers.done({ reference: 'REF-Q' }, 'op-q'));

    await transfer(deposit, w.contexts.transfer());
    await reconcile(w.table.current(deposit.id), w.contexts.reconcile());

    expect(w.provider.callsOf('getOperation')[0]?.[1]).toEqual({ operationID: 'op-q' });
    expect(w.table.current(deposit.id)).toMatchObject({ status: 'done', reference: 'REF-Q' });
    expect(w.provider.callsOf('createTransfer')).toHaveLength(1);
  });

  it(`no record of it either: after ${settings.maxPolls} reads TRANSFER_OUTCOME_UNKNOWN, never "nothing moved"`, async () => {
    const w = world();
    const deposit = await answeredAtTransfer(w);
    w.provider.answer('createTransfer', answers.refusal('INVALID_OPERATION_ID'));
    w.provider.answer(
      'getOperation',
      ...Array.from({ length: settings.maxPolls }, () =>
        answers.refusal('INVALID_OPERATION_ID', 'no such operation', 'op-q'),
      ),
    );

    await transfer(deposit, w.contexts.transfer());
    let current = w.table.current(deposit.id);
    for (let read = 0; read < settings.maxPolls && current.step === 'reconcile'; read += 1) {
      w.clock.advance((current.transfer?.pollAt ?? 0) - w.clock.now());
      await reconcile(current, w.contexts.reconcile());
      current = w.table.current(deposit.id);
    }

    expect(current).toMatchObject({ status: 'failed', failure: { type: 'TRANSFER_OUTCOME_UNKNOWN' } });
    expect(current.transfer?.attempt).toBeDefined();
    expect(w.provider.callsOf('createTransfer')).toHaveLength(1);
  });
});

describe('a question found by reading the operation back', () => {
  it('is timed from the submission, when the bank began waiting, not from the read', async () => {
    const w = world();
    const ctx = w.contexts.reconcile();
    const submittedAgo = 30_000;
    const deposit = await atReconcile(w, submittedAgo);
    w.provider.answer('getOperation', answers.question('op-7'));

    await reconcile(deposit, ctx);

    const expiresAt = w.clock.now() - submittedAgo + settings.inputTtlMs;
    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({ status: 'user_input_required', pendingInput: { expiresAt } });
    expect(after.checkAt).toBe(expiresAt + settings.stallAfterMs);
    expect(ctx.queues.sent.map((sent) => [sent.message.kind, sent.delaySeconds])).toEqual([
      ['expire-input', (settings.inputTtlMs - submittedAgo) / 1000],
    ]);
  });

  it('found with less than its share of time left: asked again instead of shown about to lapse', async () => {
    const w = world();
    const ctx = w.contexts.reconcile();
    const submittedAgo = settings.inputTtlMs * (1 - MIN_ANSWER_SHARE) + 1_000;
    const deposit = await atReconcile(w, submittedAgo);
    w.provider.answer('getOperation', answers.question('op-7'));

    await reconcile(deposit, ctx);

    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({ status: 'initialized', step: 'transfer', tallies: { reasks: 1 } });
    expect(after.pendingInput).toBeUndefined();
    expect(after.transfer?.attempt).toBeUndefined();
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['transfer']);
    expect(w.events.types()).toEqual([]);
  });

  it('found late with the re-asks used up: shown with the time it has left', async () => {
    const w = world();
    const ctx = w.contexts.reconcile();
    const submittedAgo = settings.inputTtlMs - 20_000;
    const deposit = await atReconcile(w, submittedAgo, { tallies: { reasks: MAX_REASKS } });
    w.provider.answer('getOperation', answers.question('op-7'));

    await reconcile(deposit, ctx);

    expect(w.table.current(deposit.id)).toMatchObject({
      status: 'user_input_required',
      pendingInput: { expiresAt: w.clock.now() + 20_000 },
    });
  });
});

describe('a refusal of the read is not a refusal of the transfer', () => {
  it.for([
    { label: 'a 429 naming no operation', refusal: answers.refusal('TOO_MANY_REQUESTS') },
    { label: 'a 403 naming no operation', refusal: answers.refusal('FORBIDDEN') },
    { label: 'a token type other than UNAUTHORIZED', refusal: answers.refusal('INVALID_TOKEN') },
    { label: "a transfer's type naming no operation", refusal: answers.refusal('INSUFFICIENT_BALANCE') },
    {
      label: 'a refusal naming another operation',
      refusal: answers.refusal('INSUFFICIENT_BALANCE', 'no', 'op-other'),
    },
    { label: 'a 429 naming the operation', refusal: answers.refusal('TOO_MANY_REQUESTS', 'later', 'op-7') },
  ])('$label: read again, the attempt kept on record', async ({ refusal }) => {
    const w = world();
    const ctx = w.contexts.reconcile();
    const deposit = await atReconcile(w);
    w.provider.answer('getOperation', refusal);

    await reconcile(deposit, ctx);

    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({ status: 'initialized', step: 'reconcile', transfer: { polls: 1 } });
    expect(after.transfer?.attempt).toBeDefined();
    expect(after.transfer?.operationId).toBe('op-7');
    expect(after.history.at(-1)?.note).toBe(
      `transfer outcome, read 1: the read was refused (${refusal.type})`,
    );
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['reconcile']);
    expect(w.events.types()).toEqual([]);
  });

  it(`refused on every read: after ${settings.maxPolls} reads the outcome stays unknown, never failed as unmoved`, async () => {
    const w = world();
    const ctx = w.contexts.reconcile();
    let deposit = await atReconcile(w);
    w.provider.answer(
      'getOperation',
      ...Array.from({ length: settings.maxPolls }, () => answers.refusal('TOO_MANY_REQUESTS')),
    );

    for (let read = 0; read < settings.maxPolls && deposit.step !== 'completed'; read += 1) {
      await reconcile(deposit, ctx);
      deposit = w.table.current(deposit.id);
      w.clock.advance(Math.max(0, (deposit.transfer?.pollAt ?? 0) - w.clock.now()));
    }

    expect(deposit).toMatchObject({ status: 'failed', failure: { type: 'TRANSFER_OUTCOME_UNKNOWN' } });
    expect(deposit.transfer?.attempt).toBeDefined();
  });
});
