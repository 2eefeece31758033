/**
 * What the transfer's attempt record stands for, through the fakes: it is written only when the call
 * can be made (the credentials opened first), and the caller's answers that went with an accepted
 * submission do not stay on the record while its outcome is read; a 429 anywhere means later, and
 * never earlier than its Retry-After (within SQS's longest delay), the sweeper waiting for it too.
 */
import { describe, expect, it } from 'vitest';
import { sweep } from '#shared/deposits/background/sweeper';
import type { Deposit } from '#shared/deposits/model/deposit';
import { reconcile } from '#shared/deposits/steps/reconcile';
import { resolveBank } from '#shared/deposits/steps/resolve-bank';
import { transfer } from '#shared/deposits/steps/transfer';
import { pollDelaySeconds } from '#shared/deposits/steps/transfer-outcomes';
import { ProviderRefusal } from '#shared/provider/client';
import { banks, initialized, settings, world } from '../support/deposit-world.ts';
import { answeredAtTransfer } from '../support/late-answers.ts';
import { atReconcile } from '../support/reconcile-step.ts';

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
    expect(w.table.current(deposit.id).transfer?.attempt).toBeUndefined();
    expect(w.provider.calls).toEqual([]);
    expect(w.table.leaseItems.size).toBe(0);
  });

  it("the caller's answers spent on an accepted submission leave the record while its outcome is read", async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const id = 'dep_answering';
    const deposit = await answeredAtTransfer(w, { id });
    w.provider.answer('createTransfer', initialized('op-q'));

    // act
    await transfer(deposit, ctx);

    // assess
    const after = w.table.current(id);
    expect(after).toMatchObject({ step: 'reconcile', transfer: { operationId: 'op-q' } });
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
    expect(after).toMatchObject({ status: 'initialized', step: 'transfer', stepCounters: { busyWaits: 1 } });
    expect(after.transfer?.attempt).toBeUndefined();
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
      stepCounters: { busyWaits: 1 },
    });
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['resolve-bank']);
  });
});

/** A 429 as the provider client throws it, naming `operationId`, with its Retry-After when given. */
const tooMany = (retryAfterMs?: number, operationId?: string) =>
  new ProviderRefusal('TOO_MANY_REQUESTS', 'Too many requests', 429, operationId, retryAfterMs);

/** The step and delay of each message a step sent. */
const sentOf = (ctx: { queues: { sent: { message: { step: string }; delaySeconds: number }[] } }) =>
  ctx.queues.sent.map((sent) => [sent.message.step, sent.delaySeconds]);

describe('a 429 with Retry-After: the next try no earlier than it asks', () => {
  async function atTransfer(w: ReturnType<typeof world>, overrides: Partial<Deposit> = {}) {
    return w.deposit({
      step: 'transfer',
      version: 2,
      bank: banks.beneficiary,
      beneficiaryId: 'ben-1',
      ...overrides,
    });
  }

  it('the transfer refused 429 with Retry-After 30 s: back 30 s later, and the sweeper does not come sooner', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    w.provider.answer('createTransfer', tooMany(30_000));
    const refusedAt = w.clock.now();

    // act
    await transfer(deposit, ctx);
    w.clock.advance(30_000 + settings.stallAfterMs - 1);
    const { redriven } = await sweep(w.contexts.sweep());

    // assess
    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({ status: 'initialized', step: 'transfer', stepCounters: { busyWaits: 1 } });
    expect(after.transfer?.attempt).toBeUndefined();
    expect(sentOf(ctx)).toEqual([['transfer', 30]]);
    expect(after.checkAt).toBe(refusedAt + 30_000 + settings.stallAfterMs);
    expect(redriven).toBe(0);
  });

  it("without Retry-After, or with a shorter one, today's growing delay", async () => {
    // prepare: the fourth busy answer waits 7 s
    const w = world();
    const without = w.contexts.transfer();
    const shorter = w.contexts.transfer();
    const first = await atTransfer(w, { stepCounters: { retries: 0, busyWaits: 3 } });
    const second = await atTransfer(w, { stepCounters: { retries: 0, busyWaits: 3 } });
    w.provider.answer('createTransfer', tooMany(), tooMany(2_000));

    // act
    await transfer(first, without);
    await transfer(second, shorter);

    // assess
    expect(sentOf(without)).toEqual([['transfer', 7]]);
    expect(sentOf(shorter)).toEqual([['transfer', 7]]);
    expect(w.table.current(first.id).checkAt).toBe(w.clock.now() + 7_000 + settings.stallAfterMs);
  });

  it('a Retry-After past 15 minutes waits 15 minutes (the longest SQS delay)', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    w.provider.answer('createTransfer', tooMany(3_600_000));

    await transfer(deposit, ctx);

    expect(sentOf(ctx)).toEqual([['transfer', 900]]);
  });

  it('a busy connection (409) that names a Retry-After: waited for as well', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    w.provider.answer(
      'createTransfer',
      new ProviderRefusal('OPERATION_IN_PROGRESS', 'busy', 409, undefined, 20_500),
    );

    await transfer(deposit, ctx);

    expect(sentOf(ctx)).toEqual([['transfer', 21]]);
  });

  it('the metadata read refused 429 with Retry-After 30 s: asked again 30 s later', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    const deposit = await w.deposit();
    w.provider.answer('getMetadata', tooMany(30_000));

    await resolveBank(deposit, ctx);

    expect(w.table.current(deposit.id)).toMatchObject({
      step: 'resolve-bank',
      stepCounters: { busyWaits: 1 },
    });
    expect(sentOf(ctx)).toEqual([['resolve-bank', 30]]);
  });

  describe('the outcome read (reconcile)', () => {
    it('refused 429 with Retry-After 30 s: read again no sooner than 30 s, the attempt kept', async () => {
      const w = world();
      const ctx = w.contexts.reconcile();
      const deposit = await atReconcile(w);
      w.provider.answer('getOperation', tooMany(30_000, 'op-7'));

      await reconcile(deposit, ctx);

      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({
        step: 'reconcile',
        transfer: { polls: 1, pollAt: w.clock.now() + 30_000 },
      });
      expect(after.transfer?.attempt).toBeDefined();
      expect(sentOf(ctx)).toEqual([['reconcile', 30]]);
    });

    it("refused 429 without Retry-After: today's doubling delay", async () => {
      const w = world();
      const ctx = w.contexts.reconcile();
      const deposit = await atReconcile(w);
      w.provider.answer('getOperation', tooMany(undefined, 'op-7'));

      await reconcile(deposit, ctx);

      expect(sentOf(ctx)).toEqual([['reconcile', pollDelaySeconds(1)]]);
    });

    it.for([
      {
        label: "a 429 with a transfer's type",
        refusal: new ProviderRefusal('INSUFFICIENT_BALANCE', 'slow down', 429, 'op-7', 10_000),
      },
      {
        label: 'a busy connection (409 OPERATION_IN_PROGRESS)',
        refusal: new ProviderRefusal('OPERATION_IN_PROGRESS', 'busy', 409, 'op-7', 10_000),
      },
    ])(
      "$label naming the transfer's operation: the read refused, read again, never sent again",
      async ({ refusal }) => {
        const w = world();
        const ctx = w.contexts.reconcile();
        const deposit = await atReconcile(w);
        w.provider.answer('getOperation', refusal);

        await reconcile(deposit, ctx);

        const after = w.table.current(deposit.id);
        expect(after).toMatchObject({ status: 'initialized', step: 'reconcile', transfer: { polls: 1 } });
        expect(after.transfer?.attempt).toBeDefined();
        expect(sentOf(ctx)).toEqual([['reconcile', 10]]);
      },
    );
  });
});
