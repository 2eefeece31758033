/**
 * The chaos run's evidence of an open transfer attempt (`infra/local/crash-wrappers.ts`): a read of
 * the deposit that left this process before the attempt's write, and came back after it, is older
 * than the attempt and closes nothing. The deposit table is replaced here by a scripted one (the
 * interleaving of a read and a write in flight cannot be set up on DynamoDB Local at will).
 */
import { describe, expect, it } from 'vitest';
import { isOpen } from '#infra/local/crash-points';
import { installCrashPoints } from '#infra/local/crash-wrappers';
import { DepositItems } from '#shared/adapters/deposit-items';
import type { Deposit } from '#shared/deposits/model/deposit';
import { world } from '../support/deposit-world.ts';

/** The next read answers what the test says, when it says. */
let answerRead: (deposit: Deposit) => void = () => {};
const stored = new Map<string, Deposit>();
DepositItems.prototype.get = (_id: string) =>
  new Promise<Deposit | undefined>((resolve) => {
    answerRead = resolve;
  });
DepositItems.prototype.save = async (deposit: Deposit) => {
  stored.set(deposit.id, deposit);
  return true;
};
installCrashPoints();
const records = new DepositItems({ client: {} as never, tableName: 'deposits' });

describe('the evidence of an open transfer attempt', () => {
  it('is not closed by a read older than the attempt that answers after it', async () => {
    // prepare: a deposit at its transfer, version 4, no attempt
    const w = world();
    const before = await w.deposit({ step: 'transfer', version: 4 });

    // act: a copy of its message reads it; meanwhile the run records its attempt (version 5); then
    // the read answers, with version 4
    const read = records.get(before.id);
    await records.save({ ...before, version: 5, transfer: { attempt: { at: 1, answering: false } } }, 4);
    const openAfterWrite = isOpen(before.id);
    answerRead(before);
    await read;

    // assess
    expect(openAfterWrite).toBe(true);
    expect(isOpen(before.id)).toBe(true);
  });

  it('is closed by a read of a later version without the attempt (its outcome recorded elsewhere)', async () => {
    const w = world();
    const before = await w.deposit({ step: 'transfer', version: 4 });
    await records.save({ ...before, version: 5, transfer: { attempt: { at: 1, answering: false } } }, 4);

    const read = records.get(before.id);
    answerRead({ ...before, version: 6, step: 'reconcile' });
    await read;

    expect(isOpen(before.id)).toBe(false);
  });
});
