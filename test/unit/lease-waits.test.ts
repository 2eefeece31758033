/**
 * Deposits that wait for the connection's lease another deposit holds (`journey/lease-waits.ts`),
 * through the fakes of the ports and a manual clock: the step that gave up its patience records its
 * deposit on the lease, and whoever frees the lease wakes the deposit that has waited longest, at its
 * step and version, at once, where the waiter would otherwise come back on its own timer.
 */
import { describe, expect, it } from 'vitest';
import { takeLease } from '#shared/deposits/journey/connection';
import { freeLease } from '#shared/deposits/journey/lease-waits';
import { apply } from '#shared/deposits/journey/next';
import { fail, ownLease } from '#shared/deposits/journey/transitions';
import type { Deposit } from '#shared/deposits/model/deposit';
import { transfer } from '#shared/deposits/steps/transfer';
import { answers, banks, ownerKey, world } from '../support/deposit-world.ts';

const atTransfer = { step: 'transfer', bank: banks.beneficiary, beneficiaryId: 'ben-1' } as const;
const waitForLease = (step: 'transfer' | 'resolve-bank') =>
  ({ kind: 'later', step, changes: {}, wait: 'lease' }) as const;

function waitsOf(w: ReturnType<typeof world>) {
  return [...(w.table.leaseWaits.get(ownerKey)?.values() ?? [])];
}

/** A holder of the lease, and two deposits at the transfer that wait for it, a second apart. */
async function twoWaiting(w: ReturnType<typeof world>, holder: string) {
  const ctx = w.contexts.transfer();
  const now = w.clock.now();
  await w.table.leases.acquire(ownerKey, holder, now + 60_000, now);
  const first = await w.deposit(atTransfer);
  const second = await w.deposit(atTransfer);
  await apply(ctx, first, waitForLease('transfer'));
  w.clock.advance(1_000);
  await apply(ctx, second, waitForLease('transfer'));
  ctx.queues.sent.length = 0;
  return { ctx, first, second };
}

/** A deposit at its transfer, whose connection's lease another deposit holds for `holdMs`. */
async function heldByAnother(holdMs: number) {
  const w = world();
  const ctx = w.contexts.transfer();
  const now = w.clock.now();
  await w.table.leases.acquire(ownerKey, 'dep_other#run', now + holdMs, now);
  const waiting = await w.deposit(atTransfer);
  return { w, ctx, waiting };
}

describe("waiting for another deposit's lease", () => {
  it('a step that finds the lease held records its deposit on it, at the version it wrote, and comes back in a second all the same', async () => {
    // prepare
    const { w, ctx, waiting } = await heldByAnother(60_000);

    // act
    await transfer(waiting, ctx);

    // assess
    const written = w.table.current(waiting.id);
    expect(written.stepCounters.busyWaits).toBe(1);
    expect(waitsOf(w)).toEqual([
      expect.objectContaining({ depositId: waiting.id, step: 'transfer', version: written.version }),
    ]);
    expect(ctx.queues.sent).toEqual([
      {
        message: expect.objectContaining({ depositId: waiting.id, version: written.version }),
        delaySeconds: 1,
      },
    ]);
    expect(w.provider.callsOf('createTransfer')).toHaveLength(0);
  });

  it('the deposit holding it frees it as it ends, and the waiter is woken at once, at its step and version, and goes on', async () => {
    // prepare: the first deposit's transfer asks its caller a question, and keeps the connection
    const w = world();
    const ctx = w.contexts.transfer();
    w.provider
      .answer('createTransfer', answers.question())
      .answer('createTransfer', answers.done({ reference: 'REF-2' }));
    const asking = await w.deposit(atTransfer);
    const waiting = await w.deposit(atTransfer);
    await transfer(asking, ctx);
    expect((await w.table.leases.holderOf(ownerKey))?.holder).toBe(ownLease(asking));
    await transfer(waiting, ctx);
    ctx.queues.sent.length = 0;

    // act: its question expires unanswered
    await fail(ctx, w.table.current(asking.id), 'INPUT_EXPIRED', 'unanswered');

    // assess: woken now, its wait taken off the lease; the message it is woken by moves it on
    const waited = w.table.current(waiting.id);
    expect(ctx.queues.sent).toEqual([
      {
        message: { depositId: waiting.id, step: 'transfer', version: waited.version, kind: 'run' },
        delaySeconds: 0,
      },
    ]);
    expect(waitsOf(w)).toEqual([]);
    await transfer(waited, ctx);
    expect(w.table.current(waiting.id)).toMatchObject({ status: 'done', reference: 'REF-2' });
  });

  it('wakes the one that has waited longest, one each time the lease is freed', async () => {
    // prepare: two deposits wait, a second apart, at two steps
    const w = world();
    const ctx = w.contexts.transfer();
    const now = w.clock.now();
    await w.table.leases.acquire(ownerKey, 'dep_holder#run-1', now + 60_000, now);
    const first = await w.deposit(atTransfer);
    const second = await w.deposit({ step: 'resolve-bank' });
    await apply(ctx, first, waitForLease('transfer'));
    w.clock.advance(1_000);
    await apply(w.contexts.resolveBank(), second, waitForLease('resolve-bank'));
    ctx.queues.sent.length = 0;

    // act
    await freeLease(ctx, ownerKey, 'dep_holder#run-1');
    const afterFirst = ctx.queues.sent.map(({ message }) => message.depositId);
    await w.table.leases.acquire(ownerKey, 'dep_holder#run-2', w.clock.now() + 60_000, w.clock.now());
    await freeLease(ctx, ownerKey, 'dep_holder#run-2');

    // assess
    expect(afterFirst).toEqual([first.id]);
    expect(ctx.queues.sent.map(({ message }) => [message.depositId, message.step])).toEqual([
      [first.id, 'transfer'],
      [second.id, 'resolve-bank'],
    ]);
    expect(waitsOf(w)).toEqual([]);
  });

  it('a waiter that took the lease on its own timer is waiting no more: its freeing wakes the next', async () => {
    // prepare
    const w = world();
    const { ctx, first, second } = await twoWaiting(w, 'dep_holder#run');
    // The holder's lease ran out; the first waiter's own message came back and took it.
    w.clock.advance(60_000);
    const taken = await w.table.leases.acquire(
      ownerKey,
      `${first.id}#run`,
      w.clock.now() + 60_000,
      w.clock.now(),
    );

    // act
    await freeLease(ctx, ownerKey, `${first.id}#run`);

    // assess
    expect(taken).toBe(true);
    expect(ctx.queues.sent.map(({ message }) => message.depositId)).toEqual([second.id]);
  });

  it('a waiter cancelled while it waits leaves no wait behind: the freer wakes the next', async () => {
    // prepare
    const w = world();
    const { ctx, first, second } = await twoWaiting(w, 'dep_holder#run');

    // act: its owner cancels the first, then the holder frees the lease
    await fail(w.contexts.cancel(), w.table.current(first.id), 'CANCELLED', 'cancelled by its owner');
    await freeLease(ctx, ownerKey, 'dep_holder#run');

    // assess
    expect(waitsOf(w)).toEqual([]);
    expect(ctx.queues.sent.map(({ message }) => message.depositId)).toEqual([second.id]);
  });

  it('a lease free by the time the wait would be recorded: nothing recorded, and the step comes back at once too', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit: Deposit = await w.deposit(atTransfer);

    // act
    await apply(ctx, deposit, waitForLease('transfer'));

    // assess
    expect(waitsOf(w)).toEqual([]);
    const message = expect.objectContaining({ depositId: deposit.id, step: 'transfer', version: 1 });
    expect(ctx.queues.sent).toEqual([
      { message, delaySeconds: 1 },
      { message, delaySeconds: 0 },
    ]);
  });

  it('a step that finds the lease held tries it at most eight times in its two seconds of patience, however its pauses are drawn', async () => {
    // prepare: another deposit holds the lease throughout; each try of it is counted
    const { ctx, waiting } = await heldByAnother(600_000);
    let tries = 0;
    const leases = {
      ...ctx.leases,
      acquire: (...args: Parameters<typeof ctx.leases.acquire>) => {
        tries += 1;
        return ctx.leases.acquire(...args);
      },
    };

    // act: twenty spins, each with pauses drawn afresh
    const counts: number[] = [];
    for (let spin = 0; spin < 20; spin += 1) {
      tries = 0;
      expect(await takeLease({ ...ctx, leases }, waiting)).toBe('busy');
      counts.push(tries);
    }

    // assess: each refused try is a write; the freer wakes the waiter, so the spin need not be dense
    expect(ctx.settings.leasePatienceMs).toBe(2_000);
    expect(Math.max(...counts)).toBeLessThanOrEqual(8);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(5);
  });
});
