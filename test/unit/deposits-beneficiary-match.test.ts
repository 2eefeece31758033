/**
 * The wallet's beneficiary in a bank's list, only when unambiguous: by its full account number or
 * IBAN, or (a bank that masks them) by the one new entry after our own creation; never by name or
 * by a masked fragment alone. Then the ensure-beneficiary step at such a bank, through the fakes.
 */
import { describe, expect, it } from 'vitest';
import { localWallets } from '#infra/local/wallets';
import { walletAccounts } from '#shared/deposits/model/wallets';
import { type ListedEntry, matchWallet } from '#shared/deposits/steps/beneficiary-match';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { answers, banks, claimKey, settings, world } from '../support/deposit-world.ts';

// Account number 0331234567890123456, IBAN AE070331234567890123456.
const [wallet] = walletAccounts(localWallets);
if (!wallet) throw new Error('the local wallets have an AED account');

const entry = (id: string, accountNumber: string, status = 'approved'): ListedEntry => ({
  id,
  accountNumber,
  status,
});

describe('matchWallet', () => {
  it.each([
    ['the account number', '0331234567890123456'],
    ['the IBAN', 'AE070331234567890123456'],
    ['the IBAN, spaced and in lower case', 'ae07 0331 2345 6789 0123 456'],
  ])('finds the entry listing %s in full', (_, accountNumber) => {
    // act
    const match = matchWallet([entry('ben-other', '9999'), entry('ben-1', accountNumber)], wallet);

    // assess
    expect(match).toEqual({ kind: 'listed', id: 'ben-1', approved: true });
  });

  it('finds nothing in a list of other accounts, whatever their names', () => {
    // act
    const match = matchWallet([entry('ben-1', '111122223333'), entry('ben-2', '****9999')], wallet);

    // assess
    expect(match).toBeUndefined();
  });

  it('two different ids listing the wallet in full are ambiguous', () => {
    // act
    const match = matchWallet(
      [entry('ben-1', '0331234567890123456'), entry('ben-2', 'AE070331234567890123456')],
      wallet,
    );

    // assess
    expect(match).toEqual({ kind: 'ambiguous' });
  });

  it.each([
    ['the account number', '****3456'],
    ['with dots and a dash', '••••-3456'],
    ['the IBAN', 'XXXXXXXXXXXXXXXXXXX3456'],
  ])('a masked entry ending as %s does is ambiguous on its own', (_, accountNumber) => {
    // act
    const match = matchWallet([entry('ben-1', accountNumber)], wallet);

    // assess
    expect(match).toEqual({ kind: 'ambiguous' });
  });

  it('a masked entry with another end, or nothing visible, is not the wallet', () => {
    // act
    const match = matchWallet([entry('ben-1', '****1111'), entry('ben-2', '********')], wallet);

    // assess
    expect(match).toBeUndefined();
  });

  it('the one new masked entry after our creation is ours', () => {
    // act
    const match = matchWallet(
      [entry('ben-old', '****1111'), entry('ben-new', '****3456', 'pending')],
      wallet,
      ['ben-old'],
    );

    // assess
    expect(match).toEqual({ kind: 'listed', id: 'ben-new', approved: false });
  });

  it('a fitting entry listed before our creation does not hide the new one; two new ones are ambiguous', () => {
    // act
    const withOld = matchWallet([entry('ben-old', '****3456'), entry('ben-new', '****3456')], wallet, [
      'ben-old',
    ]);
    const twoNew = matchWallet([entry('ben-a', '****3456'), entry('ben-b', '****3456')], wallet, []);

    // assess
    expect(withOld).toEqual({ kind: 'listed', id: 'ben-new', approved: true });
    expect(twoNew).toEqual({ kind: 'ambiguous' });
  });
});

/** A list the masked bank answers: each entry masked to its last four characters. */
function maskedListing(...entries: ListedEntry[]) {
  const beneficiaries = entries.map((listed) => ({ ...listed, name: 'Acme Wallet LLC', type: 'local' }));
  return answers.done({ jobID: 'j', success: true, status: 'done', beneficiaries });
}

describe('ensure-beneficiary at a bank that masks accounts', () => {
  it('creates the beneficiary and takes the one new masked entry as its id', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
    w.provider.answer('listBeneficiaries', maskedListing(entry('ben-old', '****1111')));
    w.provider.answer(
      'createBeneficiary',
      answers.done({ jobID: 'j', success: true, status: 'done', reference: 'rcp-1' }),
    );
    w.provider.answer(
      'listBeneficiaries',
      maskedListing(entry('ben-old', '****1111'), entry('ben-new', '****3456')),
    );

    // act
    await ensureBeneficiary(deposit, ctx);

    // assess
    expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-new' });
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', beneficiaryId: 'ben-new' });
  });

  it('a creation whose answer was lost: the retry takes the one new masked entry, never creates again', async () => {
    // prepare: a list before the creation, the creation carried out but its answer lost
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
    w.provider.answer('listBeneficiaries', maskedListing(entry('ben-old', '****1111')));
    w.provider.answer('createBeneficiary', answers.unknown('timeout'));
    await ensureBeneficiary(deposit, ctx);
    const retried = w.table.current(deposit.id);
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'creating', fittingBeforeCreation: [] });
    w.provider.answer(
      'listBeneficiaries',
      maskedListing(entry('ben-old', '****1111'), entry('ben-new', '****3456')),
    );

    // act: the step again, as its retry message brings it
    await ensureBeneficiary(retried, ctx);

    // assess: the one fitting entry that was not there before our creation is ours
    expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-new' });
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
  });

  it('a holder killed right after its creation (nothing written since): its redelivered step takes the new entry', async () => {
    // prepare: the creation carried out at the bank, then the process died (no catch, no write)
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
    w.provider.answer('listBeneficiaries', maskedListing(entry('ben-old', '****1111')));
    w.provider.answer('createBeneficiary', new Error('killed after the creation'));
    await expect(ensureBeneficiary(deposit, ctx)).rejects.toThrow('killed');
    expect(w.table.current(deposit.id)).toEqual(deposit);
    // The dead process's lease runs out before the message comes back.
    w.clock.advance(settings.leaseMs + 1);
    w.provider.answer(
      'listBeneficiaries',
      maskedListing(entry('ben-old', '****1111'), entry('ben-new', '****3456')),
    );

    // act: the same message again, once SQS redelivers it
    await ensureBeneficiary(deposit, ctx);

    // assess
    expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-new' });
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
  });

  it('a claim taken over while its holder listed: no creation, the holder waits for the new holder', async () => {
    // prepare: the holder's list is slow enough that its claim went stale and another took it
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
    w.provider.answer('listBeneficiaries', () => {
      const held = w.table.claimItems.get(claimKey);
      if (held)
        w.table.claimItems.set(claimKey, { ...held, depositId: 'dep_other', claimedAt: w.clock.now() });
      return maskedListing(entry('ben-old', '****1111'));
    });

    // act
    await ensureBeneficiary(deposit, ctx);

    // assess
    expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
    expect(w.table.current(deposit.id)).toMatchObject({
      step: 'ensure-beneficiary',
      beneficiaryWork: { claimWaits: 1 },
    });
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ depositId: 'dep_other' });
    expect(w.table.claimItems.get(claimKey)?.fittingBeforeCreation).toBeUndefined();
  });

  it('a holder killed after its creation: the deposit taking its claim over takes the new entry', async () => {
    // prepare: the first deposit's creation went through unanswered, then it stopped moving
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const first = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
    w.provider.answer('listBeneficiaries', maskedListing(entry('ben-old', '****1111')));
    w.provider.answer('createBeneficiary', new Error('killed after the creation'));
    await expect(ensureBeneficiary(first, ctx)).rejects.toThrow('killed');
    w.clock.advance(settings.stallAfterMs + settings.claimStaleMs + settings.leaseMs + 1);
    const second = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
    w.provider.answer(
      'listBeneficiaries',
      maskedListing(entry('ben-old', '****1111'), entry('ben-new', '****3456')),
    );

    // act
    await ensureBeneficiary(second, ctx);

    // assess
    expect(w.table.current(second.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-new' });
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', beneficiaryId: 'ben-new' });
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
  });

  it('fails BENEFICIARY_AMBIGUOUS when the bank says it exists and lists it only masked', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
    w.provider.answer('listBeneficiaries', maskedListing(entry('ben-1', '****3456')));
    w.provider.answer('createBeneficiary', answers.refusal('BENEFICIARY_ALREADY_EXISTS'));

    // act
    await ensureBeneficiary(deposit, ctx);

    // assess
    expect(w.table.current(deposit.id)).toMatchObject({
      status: 'failed',
      step: 'completed',
      failure: { type: 'BENEFICIARY_AMBIGUOUS', msg: expect.stringContaining('masked') },
    });
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
  });

  it('on the look-up of a beneficiary the bank has, masked entries that may be it: BENEFICIARY_AMBIGUOUS', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const now = w.clock.now();
    const deposit = await w.deposit({
      step: 'ensure-beneficiary',
      bank: banks.beneficiary,
      beneficiaryWork: { lookupAt: now },
    });
    w.table.claimItems.set(claimKey, {
      ownerKey: deposit.ownerKey,
      walletAccountId: 'wallet-aed',
      state: 'created',
      depositId: deposit.id,
      claimedAt: now,
      lookupAt: now,
    });
    w.provider.answer('listBeneficiaries', maskedListing(entry('ben-1', '****3456')));

    // act
    await ensureBeneficiary(deposit, ctx);

    // assess
    expect(w.table.current(deposit.id)).toMatchObject({
      status: 'failed',
      failure: { type: 'BENEFICIARY_AMBIGUOUS' },
    });
    expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
    // Its record goes with it: a later deposit may try again (the bank says if it exists).
    expect(w.table.claimItems.get(claimKey)).toBeUndefined();
  });
});
