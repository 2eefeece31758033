/**
 * Ways a deposit could loop or stall, reproduced through the fakes: a step that throws on every
 * try, and the smaller ones.
 */
import { describe, expect, it } from 'vitest';
import { sweep } from '#shared/deposits/background/sweeper';
import { handleStepMessage } from '#shared/deposits/journey/step-messages';
import { giveUp } from '#shared/deposits/journey/transitions';
import { wakeFollowers } from '#shared/deposits/journey/wake-ups';
import type { Deposit } from '#shared/deposits/model/deposit';
import { messageFor } from '#shared/deposits/model/messages';
import { transfer } from '#shared/deposits/steps/transfer';
import { answers, type World, world } from '../support/deposit-world.ts';
import { atTransfer } from '../support/reliability.ts';

describe('a step that throws on every try', () => {
  /** The port's fake: only a throttled call passes with time here (the adapter's table: passing-errors.test.ts). */
  const passesWithTime = (error: unknown) => (error as Error).name === 'ThrottlingException';

  function throwingHandler(w: World, limits = { maxAttempts: 5, maxRedrives: 6, passesWithTime }) {
    const ctx = w.contexts.resolveBank();
    return {
      step: 'resolve-bank' as const,
      deposits: w.table.deposits,
      limits,
      run: async () => {
        // What a bank metadata value the step cannot convert, or a removed wallet, does.
        throw new Error('wallet account wallet-gone is no longer configured');
      },
      giveUp: (deposit: Deposit, reason: string) => giveUp(ctx, deposit, reason).then(() => undefined),
      handOn: (source: Deposit) => wakeFollowers(ctx.followers, source),
    };
  }

  it('is retried by its queue, and fails the deposit with a clear type on its last try', async () => {
    const w = world();
    const handler = throwingHandler(w);
    const deposit = await w.deposit();
    const message = messageFor(deposit, 'resolve-bank');

    for (let attempt = 1; attempt < 5; attempt += 1) {
      await expect(handleStepMessage(handler, message, attempt)).rejects.toThrow('no longer configured');
    }
    const outcome = await handleStepMessage(handler, message, 5);

    const failed = w.table.current(deposit.id);
    expect(outcome).toBe('gave-up');
    expect(failed).toMatchObject({ status: 'failed', step: 'completed', failure: { type: 'STEP_FAILED' } });
    expect(failed.failure?.msg).toContain('resolve-bank');
    expect(failed.sealedCredentials).toBeUndefined();
    expect(failed.checkAt).toBeUndefined();
    expect(w.events.types()).toEqual(['deposit.failed']);
  });

  it('leaves a deposit whose last try met trouble that passes at its step, for the sweeper to re-drive', async () => {
    // prepare: a step whose every try is throttled (the infrastructure's trouble, not the deposit's)
    const w = world();
    const handler = {
      ...throwingHandler(w),
      run: async () => {
        throw Object.assign(new Error('Rate of requests exceeds the allowed throughput'), {
          name: 'ThrottlingException',
        });
      },
    };
    const sweepCtx = w.contexts.sweep();
    const deposit = await w.deposit();
    const message = messageFor(deposit, 'resolve-bank');

    // act: the last of its tries fails too, and later the sweeper looks
    await expect(handleStepMessage(handler, message, 5)).rejects.toThrow('allowed throughput');
    w.clock.set((w.table.current(deposit.id).checkAt ?? 0) + 1);
    const { redriven } = await sweep(sweepCtx);

    // assert: not ended, no event; re-driven at its own step and version
    expect(w.table.current(deposit.id)).toMatchObject({
      status: 'initialized',
      step: 'resolve-bank',
      version: 0,
    });
    expect(w.events.types()).toEqual([]);
    expect(redriven).toBe(1);
    expect(sweepCtx.queues.sent.map((sent) => sent.message)).toContainEqual(expect.objectContaining(message));
  });

  it('ends as TRANSFER_OUTCOME_UNKNOWN when a transfer attempt is on record: money may have moved', async () => {
    const w = world();
    const handler = { ...throwingHandler(w), step: 'transfer' as const };
    const deposit = await atTransfer(w, { transfer: { attempt: { at: w.clock.now(), answering: false } } });
    const message = { depositId: deposit.id, step: 'transfer' as const, version: 2, kind: 'run' as const };

    await handleStepMessage(handler, message, 5);

    expect(w.table.current(deposit.id).failure?.type).toBe('TRANSFER_OUTCOME_UNKNOWN');
  });

  it('is not re-driven by the sweeper forever: past the limit of re-drives without moving, it fails', async () => {
    const w = world();
    const handler = throwingHandler(w);
    const sweepCtx = w.contexts.sweep();
    const deposit = await w.deposit({ checkAt: w.clock.now() - 1 });

    // Each re-drive dies with its worker (no catch runs): only the sweeper brings it back.
    for (let round = 0; round < 6; round += 1) {
      await sweep(sweepCtx);
      w.clock.set(w.table.current(deposit.id).checkAt ?? 0);
    }
    const message = messageFor(deposit, 'resolve-bank');
    const outcome = await handleStepMessage(handler, message, 1);

    expect(outcome).toBe('gave-up');
    expect(w.table.current(deposit.id)).toMatchObject({ status: 'failed', failure: { type: 'STEP_FAILED' } });
    expect(w.table.current(deposit.id).failure?.msg).toContain('re-driven 6 times');
  });
});

describe('smaller ways a deposit could loop or stall', () => {
  it('drops the caller answers after a refusal: never re-sent to a dead operation, never kept sealed', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const answered = [{ id: 'otp', index: 0, query: 'One-time password', answer: '123456' }];
    const deposit = await atTransfer(w, {
      id: 'dep_answered',
      pendingInput: { providerOperationId: 'op-q', userInputs: answered, expiresAt: w.clock.now() + 60_000 },
      sealedAnswers: await w.vault.seal('answers', 'dep_answered', answered),
    });
    w.provider.answer('createTransfer', answers.refusal('OPERATION_IN_PROGRESS'));

    await transfer(deposit, ctx);

    const retried = w.table.current(deposit.id);
    expect(retried.status).toBe('initialized');
    expect(retried.sealedAnswers).toBeUndefined();
    expect(retried.pendingInput).toBeUndefined();
  });

  it('recognises its own write when the answer to it was lost: the attempt is not read as unknown', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    // fault: the attempt record lands, its answer is lost, and the SDK's retry fails its condition
    const save = ctx.deposits.save;
    let lost = false;
    ctx.deposits = {
      ...ctx.deposits,
      save: async (next, expected) => {
        const saved = await save(next, expected);
        if (!lost && next.transfer?.attempt) {
          lost = true;
          return save(next, expected);
        }
        return saved;
      },
    };
    w.provider.answer('createTransfer', answers.done({ reference: 'TRF9' }));

    await transfer(deposit, ctx);

    expect(w.table.current(deposit.id)).toMatchObject({ status: 'done', reference: 'TRF9' });
    expect(w.provider.callsOf('createTransfer')).toHaveLength(1);
  });
});
