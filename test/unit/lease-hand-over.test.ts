/**
 * A first deposit's call lease, handed from step to step (`handsOver` in
 * `shared/deposits/journey/next.ts`): resolve-bank, ensure-beneficiary and the transfer, at a bank
 * without a cool-down, take the connection's lease once each and give it back once, at the end,
 * where each step once took it and gave it back (ensure-beneficiary renews it before a further call once any of its time has gone); the lease is held the whole way, so that no other
 * deposit's call comes between them. Through the fakes of the ports, counting the lease's writes
 * (a spy on the fake table's lease port: it only counts).
 */
import { describe, expect, it, vi } from 'vitest';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { resolveBank } from '#shared/deposits/steps/resolve-bank';
import { transfer } from '#shared/deposits/steps/transfer';
import { answers, metadata, ownerKey, walletListing, world } from '../support/deposit-world.ts';

describe('a first deposit’s call lease, from step to step', () => {
  it('is taken once a step and given back once, and held from the first call to the last', async () => {
    // prepare: a bank that wants its beneficiaries created, without a cool-down; the transfer done at once
    const w = world();
    w.provider
      .answer('getMetadata', metadata())
      .answer('listBeneficiaries', walletListing(), walletListing('ben-1'))
      .answer(
        'createBeneficiary',
        answers.done({ jobID: 'j', success: true, status: 'done', reference: 'r' }),
      )
      .answer('createTransfer', answers.done({ reference: 'REF-1' }));
    const acquire = vi.spyOn(w.table.leases, 'acquire');
    const release = vi.spyOn(w.table.leases, 'release');
    const holders: (string | undefined)[] = [];
    const deposit = await w.deposit();

    // act: each step on the deposit as the step before left it
    await resolveBank(deposit, w.contexts.resolveBank());
    holders.push((await w.table.leases.holderOf(ownerKey))?.holder);
    await ensureBeneficiary(w.table.current(deposit.id), w.contexts.ensureBeneficiary());
    holders.push((await w.table.leases.holderOf(ownerKey))?.holder);
    await transfer(w.table.current(deposit.id), w.contexts.transfer());

    // assess: one release; between the steps, the lease named on the deposit
    const done = w.table.current(deposit.id);
    expect(done).toMatchObject({ status: 'done', reference: 'REF-1' });
    expect(w.provider.callsOf('listBeneficiaries')).toHaveLength(2);
    // One take a step (the manual clock stands still: ensure-beneficiary's lease keeps its whole
    // time between its calls, so it is not renewed).
    expect(acquire).toHaveBeenCalledTimes(3);
    expect(release).toHaveBeenCalledTimes(1);
    expect(holders.every((holder) => holder?.startsWith(`${deposit.id}#`))).toBe(true);
    expect(new Set(holders).size).toBe(2);
    expect(await w.table.leases.holderOf(ownerKey)).toBeUndefined();
  });
});
