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
 */
import { describe, expect, it } from 'vitest';
import { MAX_REASKS, MIN_ANSWER_SHARE } from '#shared/deposits/journey/input';
import type { Deposit } from '#shared/deposits/model/deposit';
import { reconcile } from '#shared/deposits/steps/reconcile';
import { transfer } from '#shared/deposits/steps/transfer';
import { answers, banks, question, settings, world } from '../support/deposit-world.ts';

type World = ReturnType<typeof world>;

const initialized = (id: string) => ({ status: 'initialized' as const, id, response: {} });
const expired = (operationId?: string) =>
  answers.refusal('USER_INPUT_EXPIRED', 'The operation waited too long for user input', operationId);

/** A deposit waiting at the transfer with the caller's answers to the bank's question `op-q`. */
async function answeredAtTransfer(w: World, overrides: Partial<Deposit> = {}) {
  const id = overrides.id ?? 'dep_answered';
  const sealedAnswers = await w.vault.seal('answers', id, [{ ...question[0], answer: '123456' }]);
  return w.deposit({
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
    ...overrides,
  });
}

/** A deposit whose transfer the bank accepted as `op-7`, `submittedAgo` ms ago, its outcome unread. */
function atReconcile(w: World, submittedAgo = 1_000, overrides: Partial<Deposit> = {}) {
  return w.deposit({
    step: 'reconcile',
    version: 6,
    bank: banks.beneficiary,
    beneficiaryId: 'ben-1',
    transfer: {
      attempt: { at: w.clock.now() - submittedAgo, answering: false },
      operationId: 'op-7',
      polls: 0,
      pollAt: w.clock.now(),
    },
    ...overrides,
  });
}

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
