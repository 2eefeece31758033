/** The transfer step through the fakes of its ports: the connection's lease, and writers at the same time. */
import { describe, expect, it } from 'vitest';
import { MAX_BUSY_WAITS, SHORT_LEASE_WAITS } from '#shared/deposits/journey/later';
import { transfer } from '#shared/deposits/steps/transfer';
import { answers, banks, ownerKey, settings, world } from '../support/deposit-world.ts';
import { atTransfer } from '../support/transfer-step.ts';

describe('transfer: the connection and concurrent writers', () => {
  it('waits for a connection another holds past its patience: once, recorded (busyWaits), through its queue', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    w.table.leaseItems.set(ownerKey, { holder: 'someone-else', until: w.clock.now() + 60_000 });
    const startedAt = w.clock.now();

    await transfer(deposit, ctx);

    expect(w.provider.calls).toEqual([]);
    expect(
      w.table.writes.map((write) => [write.version, write.stepCounters.busyWaits, write.transfer?.attempt]),
    ).toEqual([[3, 1, undefined]]);
    expect(w.table.current(deposit.id).history.at(-1)?.note).toBe('connection busy');
    expect(w.clock.now() - startedAt).toBeGreaterThan(0);
    expect(w.clock.now() - startedAt).toBeLessThanOrEqual(settings.leasePatienceMs + 400);
    expect(ctx.queues.sent).toEqual([
      { message: { depositId: deposit.id, step: 'transfer', version: 3, kind: 'run' }, delaySeconds: 1 },
    ]);
    expect(w.table.leaseItems.get(ownerKey)?.holder).toBe('someone-else');
  });

  it('waits a second at a time for a lease another deposit holds, then longer, then fails PROVIDER_UNAVAILABLE', async () => {
    // prepare: another deposit of the connection holds the lease for good
    const w = world();
    const ctx = w.contexts.transfer();
    let deposit = await atTransfer(w);
    w.table.leaseItems.set(ownerKey, { holder: 'dep_other#own', until: w.clock.now() + 3_600_000 });

    // act: each wait's message comes back, until the deposit ends
    for (let run = 0; run <= MAX_BUSY_WAITS; run += 1) {
      await transfer(deposit, ctx);
      deposit = w.table.current(deposit.id);
    }

    // assess
    const delays = ctx.queues.sent.map((sent) => sent.delaySeconds);
    expect(delays).toEqual([
      ...Array(SHORT_LEASE_WAITS).fill(1),
      ...Array.from({ length: MAX_BUSY_WAITS - SHORT_LEASE_WAITS }, (_, index) =>
        Math.min(30, 1 + index * 2),
      ),
    ]);
    expect(delays.reduce((sum, delay) => sum + delay, 0)).toBeGreaterThan(settings.inputTtlMs / 1000);
    expect(deposit).toMatchObject({ status: 'failed', failure: { type: 'PROVIDER_UNAVAILABLE' } });
    expect(w.provider.calls).toEqual([]);
  });

  it('does not call the provider when another writer moved the deposit, and releases the lease', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    w.table.put({ ...deposit, version: 3 });
    w.provider.answer('createTransfer', answers.done({ reference: 'NEVER' }));

    await transfer(deposit, ctx);

    expect(w.provider.calls).toEqual([]);
    expect(w.table.writes).toEqual([]);
    expect(w.table.current(deposit.id).version).toBe(3);
    expect(w.table.leaseItems.size).toBe(0);
    expect(ctx.queues.sent).toEqual([]);
    expect(w.events.published).toEqual([]);
  });

  it('gives the connection back when another writer moved the deposit while the bank asked a question', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    const port = ctx.provider;
    ctx.provider = {
      ...port,
      createTransfer: async (...args) => {
        const answer = await port.createTransfer(...args);
        // A concurrent writer (say, a cancel) moves the deposit while the call is out.
        const current = w.table.current(deposit.id);
        w.table.put({ ...current, version: current.version + 1 });
        return answer;
      },
    };
    w.provider.answer('createTransfer', answers.question());

    // act
    await transfer(deposit, ctx);

    // assess
    expect(w.table.leaseItems.size).toBe(0);
    expect(w.table.current(deposit.id).status).toBe('initialized');
    expect(w.events.published).toEqual([]);
  });

  it('does not call the provider when another writer moved a deposit whose cool-down is over', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({
      step: 'wait-cooldown',
      version: 3,
      bank: banks.coolDown,
      beneficiaryId: 'ben-1',
      cooldownUntil: w.clock.now() - 1,
    });
    w.table.put({ ...deposit, step: 'transfer', version: 4 });
    w.provider.answer('createTransfer', answers.done({ reference: 'NEVER' }));

    await transfer(deposit, ctx);

    expect(w.provider.calls).toEqual([]);
    expect(w.table.writes).toEqual([]);
    expect(w.table.leaseItems.size).toBe(0);
    expect(ctx.queues.sent).toEqual([]);
  });

  it('sends only to the transfer and wait-cooldown queues, and schedules only the transfer', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const now = w.clock.now();
    const early = await w.deposit({
      step: 'wait-cooldown',
      bank: banks.coolDown,
      beneficiaryId: 'ben-1',
      cooldownUntil: now + 30_000,
    });
    const late = await w.deposit({
      step: 'wait-cooldown',
      bank: banks.hiddenCoolDown,
      beneficiaryId: 'ben-1',
      cooldownUntil: now + 86_400_000,
    });
    const asking = await atTransfer(w, { ownerKey: 'owner-asking' });
    const busy = await atTransfer(w, { ownerKey: 'owner-busy' });
    const details = await atTransfer(w, { ownerKey: 'owner-details' });
    const cooling = await atTransfer(w, { ownerKey: 'owner-cooling' });
    w.table.leaseItems.set('owner-busy', { holder: 'someone-else', until: now + 3_600_000 });
    w.provider.answer(
      'createTransfer',
      answers.question(),
      answers.refusal('BENEFICIARY_DETAILS_REQUIRED'),
      answers.refusal('BENEFICIARY_COOL_DOWN_PERIOD'),
    );

    for (const deposit of [early, late, asking, busy, details, cooling]) await transfer(deposit, ctx);

    expect(new Set(ctx.queues.sent.map((sent) => sent.message.step))).toEqual(
      new Set(['transfer', 'wait-cooldown']),
    );
    expect([...ctx.scheduler.schedules.values()].map((schedule) => schedule.message.step)).toEqual([
      'transfer',
    ]);
    // The fakes hold the handler to its reach: any other queue or schedule target throws.
    // (resolve-bank it may send to: a lease it frees may wake a deposit waiting there for one.)
    const elsewhere = { depositId: early.id, step: 'completed', version: 0, kind: 'run' } as const;
    await expect(ctx.queues.send(elsewhere as never)).rejects.toThrow('no queue for completed');
    await expect(ctx.scheduler.scheduleAt('x', new Date(now), elsewhere as never)).rejects.toThrow(
      'no schedule target',
    );
  });
});
