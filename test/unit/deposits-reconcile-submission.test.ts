/**
 * The transfer's submission accepted, through the fakes of its ports: its operation's id recorded
 * with its answer, and the read it arms.
 */
import { describe, expect, it } from 'vitest';
import { reconcile } from '#shared/deposits/steps/reconcile';
import { transfer } from '#shared/deposits/steps/transfer';
import { answers, banks, initialized, ownerKey, settings, world } from '../support/deposit-world.ts';

describe('transfer: the submission accepted', () => {
  it('records the operation id with that answer, in one write, and reads its outcome a second later', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({
      step: 'transfer',
      version: 4,
      bank: banks.beneficiary,
      beneficiaryId: 'ben-1',
    });
    w.provider.answer('createTransfer', initialized('op-7'));

    // act
    await transfer(deposit, ctx);

    // assess: the attempt (v5), then the id with the step that reads it (v6); no second call, no event
    expect(w.table.writes.map((write) => [write.version, write.step, write.transfer?.operationId])).toEqual([
      [5, 'transfer', undefined],
      [6, 'reconcile', 'op-7'],
    ]);
    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({
      status: 'initialized',
      transfer: { polls: 0, pollAt: w.clock.now() + 1_000 },
    });
    expect(after.transfer?.attempt).toBeDefined();
    expect(after.sealedCredentials).toBeDefined();
    expect(after.checkAt).toBe(w.clock.now() + 1_000 + settings.stallAfterMs);
    expect(after.history.at(-1)?.note).toBe('transfer submitted as operation op-7');
    expect(w.provider.callsOf('createTransfer')).toHaveLength(1);
    expect(ctx.queues.sent).toEqual([
      { message: { depositId: deposit.id, step: 'reconcile', version: 6, kind: 'run' }, delaySeconds: 1 },
    ]);
    expect(w.events.types()).toEqual([]);
    // The bank holds the connection while it carries the transfer out: so does the deposit.
    expect(w.table.leaseItems.get(ownerKey)).toEqual({
      holder: `${deposit.id}#own`,
      until: w.clock.now() + settings.leaseMs,
    });
  });

  it('keeps the connection from the next deposit until the outcome is read, then frees it', async () => {
    // prepare: one deposit's transfer accepted, another deposit of the same connection at its transfer
    const w = world();
    const first = await w.deposit({
      step: 'transfer',
      version: 4,
      bank: banks.beneficiary,
      beneficiaryId: 'ben-1',
    });
    const second = await w.deposit({
      step: 'transfer',
      version: 4,
      bank: banks.beneficiary,
      beneficiaryId: 'ben-1',
    });
    w.provider.answer('createTransfer', initialized('op-7'));
    await transfer(first, w.contexts.transfer());
    const accepted = w.table.current(first.id);

    // act: the second waits on the lease (no call); the first's outcome is read; the second again
    await transfer(second, w.contexts.transfer());
    const waited = w.table.current(second.id);
    w.provider.answer('getOperation', answers.done({ reference: 'REF-1' }, 'op-7'));
    await reconcile(accepted, w.contexts.reconcile());
    const freed = w.table.leaseItems.get(ownerKey);
    w.provider.answer('createTransfer', initialized('op-8'));
    await transfer(waited, w.contexts.transfer());

    // assess
    expect(waited).toMatchObject({ step: 'transfer', stepCounters: { busyWaits: 1 } });
    expect(waited.transfer?.attempt).toBeUndefined();
    expect(w.table.current(first.id)).toMatchObject({ status: 'done', reference: 'REF-1' });
    expect(freed).toBeUndefined();
    expect(w.provider.callsOf('createTransfer')).toHaveLength(2);
    expect(w.table.current(second.id)).toMatchObject({
      step: 'reconcile',
      transfer: { operationId: 'op-8' },
    });
    expect(w.table.leaseItems.get(ownerKey)?.holder).toBe(`${second.id}#own`);
  });
});
