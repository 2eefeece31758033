/**
 * A run of the sweeper is not ended by one deposit it cannot re-drive, nor by its own timeout: each
 * deposit's failure is caught on its own (told to the run's `failures`, counted, and left due for a
 * later run), and the run stops taking deposits once the time it has left falls under its margin,
 * leaving the rest due for the next run. A write racing a deposit's ending transaction is not a
 * failure: the deposit moved on. Through the fakes of the ports and a manual clock. (Each test
 * failed before the fix: the first defer that threw ended the run; a run took deposits until it had
 * gone through the index, whatever its time; the adapter threw the transaction conflict.)
 */
import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DueDepositsIndex } from '#shared/adapters/deposits-indexes';
import { STOP_WITH_LEFT_MS, sweep } from '#shared/deposits/background/sweeper';
import type { Deposit } from '#shared/deposits/model/deposit';
import type { DueDeposit } from '#shared/deposits/ports/records';
import { world } from '../support/deposit-world.ts';

/** The failures a run tells of, as the handler's logs would show them. */
function recordedFailures() {
  const told: { depositId: string; during: string; error: string }[] = [];
  return {
    told,
    failed(deposit: DueDeposit, during: 'defer' | 'send', error: unknown) {
      told.push({ depositId: deposit.id, during, error: (error as Error).message });
    },
  };
}

/** `count` deposits due a look, oldest first. */
async function dueDeposits(w: ReturnType<typeof world>, count: number): Promise<Deposit[]> {
  const now = w.clock.now();
  const due: Deposit[] = [];
  for (let n = 0; n < count; n += 1) due.push(await w.deposit({ checkAt: now - 10_000 + n }));
  return due;
}

describe("a sweeper run's failing re-drives", () => {
  it('a defer that throws for one deposit: the others of its page and the next pages are still re-driven, and the run answers its counts', async () => {
    // prepare: 250 due deposits over three pages; the defer of the 5th throws (a throttled write),
    // the send of the 150th throws (the queue refused it), and the 200th moved on meanwhile
    const w = world();
    const base = w.contexts.sweep();
    const due = await dueDeposits(w, 250);
    const [throwsOnDefer, throwsOnSend, moved] = [due[4], due[149], due[199]] as [Deposit, Deposit, Deposit];
    w.table.lagDueIndex();
    w.table.items.set(moved.id, { ...moved, version: moved.version + 1 });
    const failures = recordedFailures();
    const ctx = {
      ...base,
      failures,
      due: {
        ...base.due,
        defer: async (deposit: DueDeposit, checkAt: number) => {
          if (deposit.id === throwsOnDefer.id) throw new Error('Throughput exceeds the current capacity');
          return base.due.defer(deposit, checkAt);
        },
      },
      queues: {
        sent: base.queues.sent,
        send: async (...args: Parameters<typeof base.queues.send>) => {
          if (args[0].depositId === throwsOnSend.id) throw new Error('Service unavailable');
          return base.queues.send(...args);
        },
      },
    };

    // act
    const run = await sweep(ctx, 100);

    // assess: every other deposit re-driven once; each failure told with its deposit and left due
    expect(run).toEqual({ redriven: 247, moved: 1, failed: 2 });
    const sent = base.queues.sent.map((s) => s.message.depositId);
    const others = due
      .map((d) => d.id)
      .filter((id) => ![throwsOnDefer.id, throwsOnSend.id, moved.id].includes(id));
    expect(sent.sort()).toEqual(others.sort());
    expect(failures.told).toEqual([
      { depositId: throwsOnDefer.id, during: 'defer', error: 'Throughput exceeds the current capacity' },
      { depositId: throwsOnSend.id, during: 'send', error: 'Service unavailable' },
    ]);
    // Its defer failed: still due now, for the next run. Its send failed: deferred, looked at again then.
    expect(w.table.current(throwsOnDefer.id)).toMatchObject({ checkAt: throwsOnDefer.checkAt });
    expect(w.table.current(throwsOnDefer.id).redrives).toBeUndefined();
    expect(w.table.current(throwsOnSend.id).redrives).toBe(1);
  });

  it('a run without a place to tell its failures still goes on', async () => {
    // prepare
    const w = world();
    const base = w.contexts.sweep();
    const due = await dueDeposits(w, 3);
    const ctx = {
      ...base,
      due: {
        ...base.due,
        defer: async (deposit: DueDeposit, checkAt: number) => {
          if (deposit.id === due[0]?.id) throw new Error('boom');
          return base.due.defer(deposit, checkAt);
        },
      },
    };

    // act
    const run = await sweep(ctx);

    // assess
    expect(run).toEqual({ redriven: 2, moved: 0, failed: 1 });
  });

  it("a write racing a deposit's ending transaction is no failure: the deposit moved on", async () => {
    // prepare: DynamoDB refuses an update of an item that a transaction is writing (DynamoDB Local
    // serialises and never does, so the client is a stand-in that injects the fault)
    const client = {
      send: async () => {
        throw new TransactionConflictException({
          message: 'Transaction is ongoing for the item',
          $metadata: {},
        });
      },
    };
    const index = new DueDepositsIndex({ client: client as never, tableName: 'deposits' });
    const deposit: DueDeposit = { id: 'dep_1', step: 'transfer', status: 'initialized', version: 4 };

    // act
    const deferred = await index.defer(deposit, Date.UTC(2026, 10, 23));

    // assess
    expect(deferred).toBe(false);
  });
});

describe("a sweeper run's time", () => {
  it('a run whose time runs out stops taking deposits and leaves the rest due; the next run takes them', async () => {
    // prepare: 300 due deposits; each defer takes 200 ms on the manual clock; the run has 50 s
    const w = world();
    const base = w.contexts.sweep();
    const due = await dueDeposits(w, 300);
    let deadline = w.clock.now() + 50_000;
    const ctx = {
      ...base,
      timeLeftMs: () => deadline - w.clock.now(),
      due: {
        ...base.due,
        defer: async (deposit: DueDeposit, checkAt: number) => {
          w.clock.advance(200);
          return base.due.defer(deposit, checkAt);
        },
      },
    };

    // act
    const first = await sweep(ctx, 100);
    const sentByFirst = base.queues.sent.map((s) => s.message.depositId);
    const untouched = due.filter((d) => !sentByFirst.includes(d.id));
    const untouchedAfterFirst = untouched.map((d) => w.table.current(d.id));
    deadline = w.clock.now() + 50_000;
    const second = await sweep(ctx, 100);

    // assess: the first run stopped short, no deposit taken past its margin, the rest left as they were
    expect(first.cutShort).toBe('time');
    expect(first.redriven).toBeGreaterThan(0);
    expect(first.redriven).toBeLessThan(300);
    expect(first.redriven + untouched.length).toBe(300);
    for (let n = 0; n < untouched.length; n += 1) {
      expect(untouchedAfterFirst[n]).toMatchObject({ checkAt: untouched[n]?.checkAt });
      expect(untouchedAfterFirst[n]?.redrives).toBeUndefined();
    }
    // the next run takes the rest (those of the first are not due again yet), each once in all
    expect(second.redriven).toBe(untouched.length);
    const sent = base.queues.sent.map((s) => s.message.depositId);
    expect(new Set(sent).size).toBe(300);
    expect(sent).toHaveLength(300);
  });

  it('takes no deposit once the time it has left is under its margin', async () => {
    // prepare: 300 due deposits; each defer takes 200 ms on the manual clock; the run has 50 s
    const w = world();
    const base = w.contexts.sweep();
    await dueDeposits(w, 300);
    const leftAtEachTake: number[] = [];
    const deadline = w.clock.now() + 50_000;
    const timeLeftMs = () => deadline - w.clock.now();
    const ctx = {
      ...base,
      timeLeftMs,
      due: {
        ...base.due,
        defer: async (deposit: DueDeposit, checkAt: number) => {
          leftAtEachTake.push(timeLeftMs());
          w.clock.advance(200);
          return base.due.defer(deposit, checkAt);
        },
      },
    };

    // act
    await sweep(ctx, 100);

    // assess
    expect(leftAtEachTake.length).toBeGreaterThan(0);
    expect(Math.min(...leftAtEachTake)).toBeGreaterThanOrEqual(STOP_WITH_LEFT_MS);
  });

  it('a run with no time left takes nothing and leaves every deposit due', async () => {
    // prepare
    const w = world();
    const base = w.contexts.sweep();
    const due = await dueDeposits(w, 5);

    // act
    const run = await sweep({ ...base, timeLeftMs: () => STOP_WITH_LEFT_MS - 1 });

    // assess
    expect(run).toEqual({ redriven: 0, moved: 0, failed: 0, cutShort: 'time' });
    expect(base.queues.sent).toHaveLength(0);
    for (const deposit of due) expect(w.table.current(deposit.id).redrives).toBeUndefined();
  });
});
