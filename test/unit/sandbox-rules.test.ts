/**
 * The sandbox's bank rules: as pure functions (transfer type, minimum per currency and type, balance,
 * IBAN, amounts in minor units), and as the operations answer them over the in-memory store (bounds,
 * balance, IBAN, cool-down and the banks' own demands).
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '#shared/provider/interface/errors';
import { findBank, type SandboxBank } from '#shared/sandbox/catalog';
import { createBeneficiary, listBeneficiaries } from '#shared/sandbox/operations/beneficiaries';
import { createAutoflowTransfer, createTransfer } from '#shared/sandbox/operations/transfers';
import {
  bankOf,
  checkBalance,
  checkMinimum,
  minorUnits,
  transferType,
  validIban,
} from '#shared/sandbox/rules';
import { givenSandbox, type SandboxTestUser, walletBeneficiary } from '../support/given-sandbox.ts';

const failed = (type: string) =>
  expect.objectContaining({ success: false, status: 'failed', type, msg: expect.any(String) });

function bank(bankId: string): SandboxBank {
  return findBank(bankId) ?? expect.fail(`no bank ${bankId}`);
}

/** The ProviderError type `action` throws, or `none`. */
function refusalOf(action: () => unknown): string {
  try {
    action();
    return 'none';
  } catch (error) {
    if (error instanceof ProviderError) return error.type;
    throw error;
  }
}

describe('bank rules', () => {
  const aed = bank('SANDBOX_BENEFICIARY');
  const kwd = bank('SANDBOX_KWD');

  it('calls a transfer `same` when the SWIFT code names the sender bank (first eight characters)', () => {
    expect(transferType(aed, 'SBXBAEADXXX')).toBe('same');
    expect(transferType(aed, ' sbxbaead ')).toBe('same');
    expect(transferType(aed, 'WALTAEAD')).toBe('local');
    expect(transferType(aed, 'SBXBAEA')).toBe('local');
  });

  it.each([
    ['SANDBOX_BENEFICIARY', 'local', 9.99, 'AMOUNT_BELOW_MINIMUM'],
    ['SANDBOX_BENEFICIARY', 'local', 10, 'none'],
    ['SANDBOX_BENEFICIARY', 'same', 0.99, 'AMOUNT_BELOW_MINIMUM'],
    ['SANDBOX_BENEFICIARY', 'same', 1, 'none'],
    ['SANDBOX_KWD', 'local', 0.999, 'AMOUNT_BELOW_MINIMUM'],
    ['SANDBOX_KWD', 'same', 0.1, 'none'],
  ] as const)(
    'at %s, holds a %s transfer of %d to the bank minimum: %s',
    (bankId, type, amount, expected) => {
      const atBank = bank(bankId);
      const amountMinor = minorUnits(amount, atBank.currency, 'amount');
      expect(refusalOf(() => checkMinimum(atBank, atBank.currency, type, amountMinor))).toBe(expected);
    },
  );

  it('refuses a transfer of more than the balance, and allows all of it', () => {
    expect(refusalOf(() => checkBalance(10_001, 10_000))).toBe('INSUFFICIENT_BALANCE');
    expect(refusalOf(() => checkBalance(10_000, 10_000))).toBe('none');
  });

  it('counts amounts in minor units of the currency, refusing more decimals than it has (BAD_REQUEST)', () => {
    expect(minorUnits(75.25, 'AED', 'amount')).toBe(7_525);
    expect(minorUnits(1.005, 'KWD', 'amount')).toBe(1_005);
    expect(() => minorUnits(1.005, 'AED', 'amount')).toThrow(
      expect.objectContaining({ type: 'BAD_REQUEST', details: [expect.stringMatching(/^amount: /)] }),
    );
  });

  it('keeps an IBAN in its normalised form, and refuses wrong check digits (INVALID_IBAN)', () => {
    expect(validIban('ae07 0331 2345 6789 0123 456')).toBe('AE070331234567890123456');
    expect(refusalOf(() => validIban('AE080331234567890123456'))).toBe('INVALID_IBAN');
  });

  it('knows the bank of every connection, and calls an unknown one a bug', () => {
    expect(bankOf({ id: 'conn_1', bankId: 'SANDBOX_KWD' })).toBe(kwd);
    expect(() => bankOf({ id: 'conn_1', bankId: 'NO_SUCH_BANK' })).toThrow(/unknown bank/);
  });
});

/** A user of `bankId` with the wallet beneficiary created; its id. */
async function givenUserWithBeneficiary(bankId: string, settings: { balance?: number } = {}) {
  const world = givenSandbox();
  const user = await world.createUser(bankId, settings);
  await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
  // The bank's id (the creation's reference is a receipt number), hidden or not.
  const [beneficiary] = await world.store.listBeneficiaries(user.connectionId);
  const receiverID = String(beneficiary?.id);
  const transfer = (amount: number, extra: Partial<Parameters<typeof createTransfer>[1]> = {}) =>
    user.call(createTransfer, { sync: true, amount, senderID: user.accountId, receiverID, ...extra });
  return { ...world, user, receiverID, transfer };
}

const balanceOf = async (world: ReturnType<typeof givenSandbox>, user: SandboxTestUser) =>
  (await world.store.getUserAssets(user.connectionId)).accounts[0]?.balanceMinor;

describe('bank rules as the operations answer them', () => {
  it('refuses a transfer below the minimum and one above the balance, debiting nothing; allows the whole balance', async () => {
    // prepare
    const world = await givenUserWithBeneficiary('SANDBOX_BENEFICIARY', { balance: 50 });

    // act
    const belowMinimum = await world.transfer(9.99);
    const aboveBalance = await world.transfer(50.01);
    const afterRefusals = await balanceOf(world, world.user);
    const wholeBalance = await world.transfer(50);

    // assess
    expect(belowMinimum).toEqual({ status: 422, body: failed('AMOUNT_BELOW_MINIMUM') });
    expect(aboveBalance).toEqual({ status: 422, body: failed('INSUFFICIENT_BALANCE') });
    expect(afterRefusals).toBe(5_000);
    expect(wholeBalance.body).toMatchObject({ success: true, status: 'done' });
    expect(await balanceOf(world, world.user)).toBe(0);
  });

  it('refuses an amount with more decimals than the currency has (BAD_REQUEST), and takes three in KWD', async () => {
    // prepare
    const aed = await givenUserWithBeneficiary('SANDBOX_BENEFICIARY');
    const kwd = await givenUserWithBeneficiary('SANDBOX_KWD');

    // act
    const inAed = await aed.transfer(10.005);
    const inKwd = await kwd.transfer(1.005);

    // assess
    expect(inAed).toEqual({ status: 400, body: failed('BAD_REQUEST') });
    expect(inKwd.body).toMatchObject({ success: true, status: 'done' });
    expect((await kwd.store.getUserAssets(kwd.user.connectionId)).transfers[0]?.amountMinor).toBe(1_005);
  });

  it('refuses a beneficiary with a wrong IBAN, keeps one IBAN per user, and stores it normalised', async () => {
    // prepare
    const { store, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const wrongIban = await user.call(createBeneficiary, {
      sync: true,
      ...walletBeneficiary(),
      iban: 'AE080331234567890123456',
    });
    const spaced = await user.call(createBeneficiary, {
      sync: true,
      ...walletBeneficiary(),
      iban: 'ae07 0331 2345 6789 0123 456',
    });
    const again = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });

    // assess
    expect(wrongIban).toEqual({ status: 400, body: failed('INVALID_IBAN') });
    expect(spaced.body).toMatchObject({ success: true, status: 'done' });
    expect(again).toEqual({ status: 409, body: failed('BENEFICIARY_ALREADY_EXISTS') });
    expect(await store.listBeneficiaries(user.connectionId)).toEqual([
      expect.objectContaining({ id: expect.stringMatching(/^ben_/), iban: 'AE070331234567890123456' }),
    ]);
  });

  it('hides a new beneficiary and refuses transfers to it until its 24-hour cool-down has passed', async () => {
    // prepare
    const world = await givenUserWithBeneficiary('SANDBOX_COOLDOWN');
    const list = () => world.user.call(listBeneficiaries, { sync: true });

    // act
    const listedEarly = await list();
    const earlyTransfer = await world.transfer(20);
    world.clock.advance(24 * 3_600_000);
    const listedLater = await list();
    const laterTransfer = await world.transfer(20);

    // assess
    expect(listedEarly.body.beneficiaries).toEqual([]);
    expect(earlyTransfer).toEqual({ status: 422, body: failed('BENEFICIARY_COOL_DOWN_PERIOD') });
    expect(listedLater.body.beneficiaries).toEqual([
      expect.objectContaining({ id: world.receiverID, type: 'local', status: 'approved' }),
    ]);
    expect(laterTransfer.body).toMatchObject({ success: true, status: 'done' });
  });

  it("demands the beneficiary's details on the first transfer only, at the bank that wants them", async () => {
    // prepare
    const world = await givenUserWithBeneficiary('SANDBOX_FIRST_DETAILS');
    const { type: _type, ...details } = { ...walletBeneficiary(), country: 'AE' };

    // act
    const bare = await world.transfer(20);
    const withDetails = await world.transfer(20, { beneficiary: details });
    const secondBare = await world.transfer(20);

    // assess
    expect(bare).toEqual({ status: 422, body: failed('BENEFICIARY_DETAILS_REQUIRED') });
    expect(withDetails.body).toMatchObject({ success: true, status: 'done' });
    expect(secondBare.body).toMatchObject({ success: true, status: 'done' });
  });

  it('sends an inline transfer only at a bank without beneficiaries', async () => {
    // prepare
    const { createUser } = givenSandbox();
    const direct = await createUser('SANDBOX_NO_BENEFICIARY');
    const withBeneficiaries = await createUser('SANDBOX_BENEFICIARY');
    const { type: _type, ...receiver } = { ...walletBeneficiary(), country: 'AE' };
    const autoflow = (user: SandboxTestUser) =>
      user.call(createAutoflowTransfer, {
        sync: true,
        amount: 20,
        senderID: user.accountId,
        action: 'transfer',
        beneficiary: receiver,
      });

    // act
    const atDirect = await autoflow(direct);
    const atOther = await autoflow(withBeneficiaries);

    // assess
    expect(atDirect.body).toMatchObject({ success: true, status: 'done' });
    expect(atOther).toEqual({ status: 422, body: failed('BENEFICIARY_REQUIRED') });
  });
});
