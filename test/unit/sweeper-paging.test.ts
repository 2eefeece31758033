/**
 * The sweeper goes through the index of due deposits once per run, a page at a time from where the
 * last page ended, so an index that lags (an eventually consistent GSI still answers the deposits it
 * just deferred as due) neither ends a run early nor has it re-drive a deposit twice. Through the
 * fakes of the ports and a manual clock. (The first test failed before the fix: the sweeper asked the
 * index from the start again after each page, found the page it had deferred, and stopped.)
 */
import { describe, expect, it } from 'vitest';
import { sweep } from '#shared/deposits/background/sweeper';
import { world } from '../support/deposit-world.ts';

describe('a run of the sweeper through a lagging index', () => {
  it('re-drives every due deposit once, however many pages, though the index still shows the deferred ones', async () => {
    // prepare: 250 deposits due a look; the index does not show the sweeper's defers
    const w = world();
    const ctx = w.contexts.sweep();
    const now = w.clock.now();
    const due = [];
    for (let n = 0; n < 250; n += 1) {
      due.push(await w.deposit({ step: 'ensure-beneficiary', checkAt: now - 1_000 + (n % 7) }));
    }
    await w.deposit({ checkAt: now + 60_000 });
    w.table.lagDueIndex();

    // act
    const { redriven } = await sweep(ctx, 100);

    // assess: each one re-driven once, deferred once
    const sent = ctx.queues.sent.map((s) => s.message.depositId);
    expect(redriven).toBe(250);
    expect(sent.sort()).toEqual(due.map((deposit) => deposit.id).sort());
    for (const deposit of due) expect(w.table.current(deposit.id).redrives).toBe(1);
  });

  it('re-drives a deposit once when the next run finds it through an index still lagging', async () => {
    // prepare: a deposit due; the index does not show the sweeper's defer before its next run
    const w = world();
    const ctx = w.contexts.sweep();
    const deposit = await w.deposit({ step: 'transfer', checkAt: w.clock.now() - 1_000 });
    w.table.lagDueIndex();

    // act: a run, and the next (a second later locally, a minute in AWS), the index as it was
    const first = await sweep(ctx, 100);
    const second = await sweep(ctx, 100);

    // assess: sent once, counted once, and due again only at the check time the first defer gave it
    expect([first.redriven, second]).toEqual([1, { redriven: 0, moved: 1, failed: 0 }]);
    expect(ctx.queues.sent).toHaveLength(1);
    expect(w.table.current(deposit.id).redrives).toBe(1);
  });

  it('stops at its bound of 5,000 deposits a run; the next run takes the rest', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.sweep();
    const now = w.clock.now();
    for (let n = 0; n < 5_001; n += 1) await w.deposit({ checkAt: now - 1_000 });
    w.table.lagDueIndex();

    // act: a run; the index catches up (and lags again); the next run
    const first = await sweep(ctx, 100);
    w.table.lagDueIndex();
    const second = await sweep(ctx, 100);

    // assess: every deposit re-driven once in all
    expect([first, second]).toEqual([
      { redriven: 5_000, moved: 0, failed: 0, cutShort: 'bound' },
      { redriven: 1, moved: 0, failed: 0 },
    ]);
    const sent = ctx.queues.sent.map((s) => s.message.depositId);
    expect(new Set(sent).size).toBe(5_001);
    expect(sent).toHaveLength(5_001);
  });
});
