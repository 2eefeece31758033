/**
 * The transfer step through the fakes of its ports: the cool-down, and at most one call. What
 * follows each answer: the `deposits-transfer-*` files beside this one.
 */
import { describe, expect, it } from 'vitest';
import { transfer } from '#shared/deposits/steps/transfer';
import type { UnknownReason } from '#shared/provider/client';
import { answers, banks, settings, world } from '../support/deposit-world.ts';
import { atTransfer } from '../support/transfer-step.ts';

describe('transfer: the cool-down', () => {
  it.for([
    { label: 'a short wait', waitMs: 90_000 },
    { label: 'a wait of exactly longWaitMs', waitMs: settings.longWaitMs },
  ])('woken early with $label: writes nothing and re-arms a delayed transfer message', async ({ waitMs }) => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({
      step: 'wait-cooldown',
      version: 3,
      bank: banks.coolDown,
      beneficiaryId: 'ben-1',
      cooldownUntil: w.clock.now() + waitMs,
    });

    // act
    await transfer(deposit, ctx);

    // assess
    expect(w.table.writes).toEqual([]);
    expect(w.provider.calls).toEqual([]);
    expect(ctx.queues.sent).toEqual([
      {
        message: { depositId: deposit.id, step: 'transfer', version: 3, kind: 'run' },
        delaySeconds: Math.ceil(waitMs / 1000),
      },
    ]);
    expect(ctx.scheduler.schedules.size).toBe(0);
    expect(w.events.published).toEqual([]);
  });

  it('woken early before a long wait: writes nothing and arms a schedule on the transfer queue', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const until = w.clock.now() + settings.longWaitMs + 60_500;
    const deposit = await w.deposit({
      step: 'wait-cooldown',
      version: 3,
      bank: banks.hiddenCoolDown,
      beneficiaryId: 'ben-1',
      cooldownUntil: until,
    });

    await transfer(deposit, ctx);

    expect(w.table.writes).toEqual([]);
    expect(w.provider.calls).toEqual([]);
    expect(ctx.queues.sent).toEqual([]);
    expect([...ctx.scheduler.schedules]).toEqual([
      [
        `${deposit.id}-transfer-${Math.floor(until / 1000)}`,
        { at: until, message: { depositId: deposit.id, step: 'transfer', version: 3, kind: 'run' } },
      ],
    ]);
  });

  it('woken at the end of the cool-down: moves to transfer (cool-down over) and transfers', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({
      step: 'wait-cooldown',
      version: 5,
      bank: banks.coolDown,
      beneficiaryId: 'ben-1',
      cooldownUntil: w.clock.now(),
    });
    w.provider.answer('createTransfer', answers.done({ reference: 'REF-CD' }));

    await transfer(deposit, ctx);

    expect(w.table.writes.map((write) => [write.version, write.step, write.status])).toEqual([
      [6, 'transfer', 'initialized'],
      [7, 'transfer', 'initialized'],
      [8, 'completed', 'done'],
    ]);
    expect(w.table.writes[0]?.transfer?.attempt).toBeUndefined();
    expect(w.table.writes[1]?.transfer?.attempt).toEqual({ at: w.clock.now(), answering: false });
    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({ status: 'done', reference: 'REF-CD' });
    expect(after.history.map((entry) => [entry.step, entry.note])).toEqual([
      ['wait-cooldown', undefined],
      ['transfer', 'cool-down over'],
      ['completed', undefined],
    ]);
    expect(w.provider.callsOf('createTransfer')).toHaveLength(1);
    expect(ctx.queues.sent).toEqual([]);
    expect(w.events.types()).toEqual(['deposit.done']);
  });
});

describe('transfer: at most once', () => {
  it('fails TRANSFER_OUTCOME_UNKNOWN without calling the provider when an attempt older than the stall time is recorded', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const at = w.clock.now() - settings.stallAfterMs;
    const deposit = await atTransfer(w, { transfer: { attempt: { at, answering: false } } });

    await transfer(deposit, ctx);

    expect(w.provider.calls).toEqual([]);
    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({
      status: 'failed',
      step: 'completed',
      version: 3,
      failure: { type: 'TRANSFER_OUTCOME_UNKNOWN' },
    });
    expect(after.sealedCredentials).toBeUndefined();
    expect(after.checkAt).toBeUndefined();
    expect(w.events.published).toEqual([
      expect.objectContaining({ id: `${deposit.id}.v3`, type: 'deposit.failed', depositId: deposit.id }),
    ]);
    expect(ctx.queues.sent).toEqual([]);
  });

  it('a copy of the message while the attempt may still be in flight: nothing called, written or sent; the sweeper looks later', async () => {
    // prepare: the first run recorded its attempt a moment ago and waits for the bank
    const w = world();
    const ctx = w.contexts.transfer();
    const at = w.clock.now() - 1_000;
    const deposit = await atTransfer(w, { transfer: { attempt: { at, answering: false } } });
    const stored = structuredClone(w.table.current(deposit.id));

    // act: SQS delivers the same message again
    await transfer(deposit, ctx);

    // assess: the first run's outcome can still land on the version it wrote
    expect(w.provider.calls).toEqual([]);
    expect(w.table.current(deposit.id)).toEqual(stored);
    expect(ctx.queues.sent).toEqual([]);
    expect(stored.checkAt).toBeGreaterThanOrEqual(at + settings.stallAfterMs);
  });

  it.for(['timeout', 'server_error', 'network'] as UnknownReason[])(
    'fails TRANSFER_OUTCOME_UNKNOWN after an unknown outcome (%s), never retried',
    async (reason) => {
      const w = world();
      const ctx = w.contexts.transfer();
      const deposit = await atTransfer(w);
      w.provider.answer('createTransfer', answers.unknown(reason), answers.done({ reference: 'NEVER' }));

      await transfer(deposit, ctx);

      expect(w.provider.callsOf('createTransfer')).toHaveLength(1);
      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({
        status: 'failed',
        step: 'completed',
        failure: { type: 'TRANSFER_OUTCOME_UNKNOWN' },
      });
      expect(after.failure?.msg).toContain(reason);
      // Money may have moved: the attempt stays on record for reconciliation.
      expect(after.transfer?.attempt).toEqual({ at: w.clock.now(), answering: false });
      expect(after.sealedCredentials).toBeUndefined();
      expect(ctx.queues.sent).toEqual([]);
      expect(ctx.scheduler.schedules.size).toBe(0);
      expect(w.events.types()).toEqual(['deposit.failed']);
      expect(w.table.leaseItems.size).toBe(0);
    },
  );

  it.for([{ label: 'done without a reference', answer: answers.done({}) }])(
    'fails TRANSFER_OUTCOME_UNKNOWN on an answer $label',
    async ({ answer }) => {
      const w = world();
      const ctx = w.contexts.transfer();
      const deposit = await atTransfer(w);
      w.provider.answer('createTransfer', answer);

      await transfer(deposit, ctx);

      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({
        status: 'failed',
        step: 'completed',
        failure: { type: 'TRANSFER_OUTCOME_UNKNOWN' },
      });
      expect(after.reference).toBeUndefined();
      expect(w.provider.callsOf('createTransfer')).toHaveLength(1);
      expect(ctx.queues.sent).toEqual([]);
      expect(w.events.types()).toEqual(['deposit.failed']);
      expect(w.table.leaseItems.size).toBe(0);
    },
  );
});
