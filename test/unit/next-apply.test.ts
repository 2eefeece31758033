/**
 * `apply`, the one place a step's decision is made so (`shared/deposits/journey/next.ts`), through the fakes
 * of its ports: the conditional write with its event, then the message or the wake-up; the effects
 * on other items before the write, or after it only once it landed; nothing for `nothing`. The
 * decisions themselves are step-decisions.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { leaseWait, takeLease } from '#shared/deposits/journey/connection';
import { after, apply, applyHolding } from '#shared/deposits/journey/next';
import { ownLease } from '#shared/deposits/journey/transitions';
import { ownerKey, world } from '../support/deposit-world.ts';

async function atTransfer() {
  const w = world();
  const ctx = w.contexts.transfer();
  const deposit = await w.deposit({ step: 'transfer', version: 2, beneficiaryId: 'ben-1' });
  return { w, ctx, deposit };
}

describe('apply', () => {
  it('moves: writes the changes with the event on the version, then sends the message after its delay', async () => {
    // prepare
    const { w, ctx, deposit } = await atTransfer();

    // act
    const moved = await apply(ctx, deposit, {
      kind: 'move',
      changes: { step: 'reconcile', transfer: { operationId: 'op-1' } },
      note: 'submitted',
      event: { type: 'deposit.cooling_down', data: { resumesAt: 'x' } },
      send: { step: 'reconcile', delaySeconds: 4 },
    });

    // assess
    expect(moved?.version).toBe(3);
    const stored = w.table.current(deposit.id);
    expect(stored).toMatchObject({ step: 'reconcile', transfer: { operationId: 'op-1' }, version: 3 });
    expect(stored.event).toMatchObject({ id: `${deposit.id}.v3`, type: 'deposit.cooling_down' });
    expect(stored.history.at(-1)).toMatchObject({ step: 'reconcile', note: 'submitted' });
    expect(ctx.queues.sent).toEqual([
      {
        message: expect.objectContaining({ depositId: deposit.id, step: 'reconcile', version: 3 }),
        delaySeconds: 4,
      },
    ]);
  });

  it('moves to a wake-up instead of a message when told one', async () => {
    // prepare: a wake-up two hours on, past what a queue's delay reaches
    const { ctx, deposit } = await atTransfer();
    const at = ctx.clock.now() + 7_200_000;

    await apply(ctx, deposit, { kind: 'move', changes: {}, wake: { step: 'transfer', at } });

    expect(ctx.queues.sent).toEqual([]);
    expect([...ctx.scheduler.schedules.values()]).toEqual([
      { at, message: expect.objectContaining({ step: 'transfer', version: 3 }) },
    ]);
  });

  it('sends nothing and runs no after-effect when the write lost to another writer; runs the before-effects', async () => {
    // prepare: another writer moved the deposit on first; the deposit holds its own lease
    const { w, ctx, deposit } = await atTransfer();
    await w.table.leases.acquire(ownerKey, ownLease(deposit), 10_000_000, 0);
    w.table.put({ ...deposit, version: 3 });

    // act
    const moved = await apply(ctx, deposit, {
      kind: 'move',
      changes: { status: 'done', step: 'completed', reference: 'R' },
      send: { step: 'transfer' },
      before: [{ lease: 'release-own' }],
      after: [{ claims: 'mark-used' }],
    });

    // assess
    expect(moved).toBeUndefined();
    expect(ctx.queues.sent).toEqual([]);
    expect(await w.table.leases.holderOf(ownerKey)).toBeUndefined();
    expect(w.table.current(deposit.id).version).toBe(3);
  });

  it('keeps a call’s lease for the deposit, or frees it', async () => {
    const { w, ctx, deposit } = await atTransfer();
    await w.table.leases.acquire(ownerKey, 'call-lease', 10_000_000, 0);

    await apply(ctx, deposit, { kind: 'move', changes: {}, before: [{ lease: 'keep', held: 'call-lease' }] });
    expect((await w.table.leases.holderOf(ownerKey))?.holder).toBe(ownLease(deposit));

    await w.table.leases.release(ownerKey, ownLease(deposit));
    await w.table.leases.acquire(ownerKey, 'call-lease', 10_000_000, 0);
    await apply(ctx, w.table.current(deposit.id), {
      kind: 'fail',
      type: 'X',
      msg: 'y',
      before: [{ lease: 'release', held: 'call-lease' }],
    });
    expect(await w.table.leases.holderOf(ownerKey)).toBeUndefined();
  });

  it('fails: the deposit ends failed with its event, and nothing is sent', async () => {
    const { w, ctx, deposit } = await atTransfer();

    await apply(ctx, deposit, { kind: 'fail', type: 'INSUFFICIENT_BALANCE', msg: 'no money' });

    expect(w.table.current(deposit.id)).toMatchObject({
      status: 'failed',
      step: 'completed',
      failure: { type: 'INSUFFICIENT_BALANCE' },
      event: expect.objectContaining({ type: 'deposit.failed' }),
    });
    expect(ctx.queues.sent).toEqual([]);
  });

  it('comes back later for a busy connection: counted, the step sent after its wait', async () => {
    const { w, ctx, deposit } = await atTransfer();

    await apply(ctx, deposit, { kind: 'later', step: 'transfer', changes: {}, retryAfterMs: 7_000 });

    expect(w.table.current(deposit.id).stepCounters.busyWaits).toBe(1);
    expect(ctx.queues.sent).toEqual([
      { message: expect.objectContaining({ step: 'transfer' }), delaySeconds: 7 },
    ]);
  });

  it('wakes without a write, and does nothing for nothing', async () => {
    const { w, ctx, deposit } = await atTransfer();
    const at = ctx.clock.now() + 7_200_000;

    await apply(ctx, deposit, { kind: 'nothing', why: 'another run has it' });
    await apply(ctx, deposit, { kind: 'wake', step: 'transfer', at, why: 'early' });

    expect(w.table.current(deposit.id).version).toBe(2);
    expect(ctx.queues.sent).toEqual([]);
    expect([...ctx.scheduler.schedules.values()]).toEqual([
      { at, message: expect.objectContaining({ step: 'transfer', version: 2 }) },
    ]);
  });

  it('retries a read whose outcome was unknown (counted), and sends a step again without a write', async () => {
    const { w, ctx, deposit } = await atTransfer();

    await apply(ctx, deposit, {
      kind: 'again',
      step: 'transfer',
      delaySeconds: 9,
      why: 'another run holds it',
    });
    expect(w.table.current(deposit.id).version).toBe(2);
    await apply(ctx, deposit, { kind: 'retry', step: 'transfer', reason: 'provider timeout' });

    expect(w.table.current(deposit.id)).toMatchObject({ version: 3, stepCounters: { retries: 1 } });
    expect(ctx.queues.sent.map((sent) => [sent.message.version, sent.delaySeconds])).toEqual([
      [2, 9],
      [3, 3],
    ]);
  });

  it('waits a second for another deposit’s lease, counted with the busy waits', async () => {
    const { w, ctx, deposit } = await atTransfer();
    await w.table.leases.acquire(ownerKey, 'dep_other#run', ctx.clock.now() + 15_000, ctx.clock.now());

    await apply(ctx, deposit, await leaseWait(ctx, deposit, 'transfer'));

    expect(w.table.current(deposit.id).stepCounters.busyWaits).toBe(1);
    expect(ctx.queues.sent).toEqual([
      { message: expect.objectContaining({ step: 'transfer' }), delaySeconds: 1 },
    ]);
  });

  it('refuses effects on a decision that writes nothing', () => {
    expect(() => after([{ lease: 'release-own' }], { kind: 'retry', step: 'transfer', reason: 'x' })).toThrow(
      /effects before a decision of kind retry/,
    );
  });
});

describe('a call lease handed from step to step', () => {
  it('passes to a step sent now that calls the bank first: recorded with the move, and only that step’s first take reclaims it', async () => {
    // prepare: resolve-bank's call lease, and its move on to ensure-beneficiary
    const w = world();
    const ctx = w.contexts.resolveBank();
    const deposit = await w.deposit();
    await w.table.leases.acquire(ownerKey, 'call-1', ctx.clock.now() + 15_000, ctx.clock.now());

    // act
    const moved = await apply(ctx, deposit, {
      kind: 'move',
      changes: { step: 'ensure-beneficiary' },
      send: { step: 'ensure-beneficiary' },
      lease: 'call-1',
    });

    // assess: still held, named on the deposit; a copy of the next step's message finds it taken
    expect(moved?.leaseHeld).toBe('call-1');
    expect((await w.table.leases.holderOf(ownerKey))?.holder).toBe('call-1');
    const next = w.table.current(deposit.id);
    const taken = await takeLease(ctx, next);
    expect(taken).not.toBe('busy');
    expect((await w.table.leases.holderOf(ownerKey))?.holder).toBe(taken);
    const copy = await takeLease({ ...ctx, settings: { ...ctx.settings, leasePatienceMs: 0 } }, next);
    expect(copy).toBe('busy');
  });

  it.each([
    ['a step that waits first', { send: { step: 'wait-cooldown' as const } }],
    ['a message after a delay', { send: { step: 'ensure-beneficiary' as const, delaySeconds: 5 } }],
    ['no message at all', {}],
  ])('is freed after the write for %s', async (_case, where) => {
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await w.deposit({ step: 'ensure-beneficiary' });
    await w.table.leases.acquire(ownerKey, 'call-1', ctx.clock.now() + 15_000, ctx.clock.now());

    const moved = await apply(ctx, deposit, { kind: 'move', changes: {}, lease: 'call-1', ...where });

    expect(moved?.leaseHeld).toBeUndefined();
    expect(await w.table.leases.holderOf(ownerKey)).toBeUndefined();
  });

  it('is freed when the move’s write lost to another writer', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    const deposit = await w.deposit();
    await w.table.leases.acquire(ownerKey, 'call-1', ctx.clock.now() + 15_000, ctx.clock.now());
    w.table.put({ ...deposit, version: deposit.version + 1 });

    const moved = await apply(ctx, deposit, {
      kind: 'move',
      changes: { step: 'ensure-beneficiary' },
      send: { step: 'ensure-beneficiary' },
      lease: 'call-1',
    });

    expect(moved).toBeUndefined();
    expect(await w.table.leases.holderOf(ownerKey)).toBeUndefined();
  });

  it('goes on with a move, or is freed by any other decision, of a step handed it that calls nothing', async () => {
    // prepare: two deposits each handed a lease, on connections of their own
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const now = ctx.clock.now();
    const moving = await w.deposit({ step: 'ensure-beneficiary', leaseHeld: 'call-1' });
    const waking = await w.deposit({ step: 'ensure-beneficiary', leaseHeld: 'call-2', ownerKey: 'other' });
    await w.table.leases.acquire(ownerKey, 'call-1', now + 15_000, now);
    await w.table.leases.acquire('other', 'call-2', now + 15_000, now);

    // act
    const moved = await applyHolding(ctx, moving, {
      kind: 'move',
      changes: { step: 'transfer' },
      send: { step: 'transfer' },
    });
    await applyHolding(ctx, waking, {
      kind: 'wake',
      step: 'ensure-beneficiary',
      at: now + 60_000,
      why: 'later',
    });

    // assess
    expect(moved?.leaseHeld).toBe('call-1');
    expect((await w.table.leases.holderOf(ownerKey))?.holder).toBe('call-1');
    expect(await w.table.leases.holderOf('other')).toBeUndefined();
  });
});
