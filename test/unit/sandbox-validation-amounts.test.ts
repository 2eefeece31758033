/**
 * Request validation: amounts carry no more decimals than their currency has. In process: the
 * sandbox's routes composed as their handlers are, over its in-memory fake store (the sanctioned
 * stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import { createUser, failed, walletBeneficiary, walletInline } from '../support/in-process-sandbox.ts';
import { badRequestNaming } from '../support/sandbox-validation.ts';

describe('amounts carry no more decimals than their currency has', () => {
  async function withBeneficiary(bankId: string) {
    const user = await createUser(bankId);
    const created = await user.call('/v1/payment/beneficiaries/create', {
      sync: true,
      ...walletBeneficiary(),
    });
    if (created.body.status !== 'done') throw new Error(`no beneficiary: ${JSON.stringify(created.body)}`);
    // The list gives the beneficiary's id (the creation's reference is a receipt number).
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });
    const transfer = (amount: unknown) =>
      user.call('/v1/payment/transfer/create', {
        sync: true,
        amount,
        senderID: user.accountId,
        receiverID: listed.body.beneficiaries[0].id,
      });
    return { user, transfer };
  }

  it('AED (2 decimals): 10.123 is a bad request and debits nothing; 10.12 is accepted', async () => {
    // prepare
    const { user, transfer } = await withBeneficiary('SANDBOX_BENEFICIARY');

    // act
    const tooPrecise = await transfer(10.123);
    const afterRefusal = await user.state();
    const exact = await transfer(10.12);
    const afterTransfer = await user.state();

    // assess
    expect(tooPrecise.status).toBe(400);
    expect(tooPrecise.body).toEqual(failed('BAD_REQUEST'));
    expect(tooPrecise.body.details).toEqual([expect.stringMatching(/^amount: .*2 decimals/)]);
    expect(afterRefusal.accounts[0].balance).toBe(100_000);
    expect(afterRefusal.transfers).toEqual([]);
    expect(exact.status).toBe(200);
    expect(exact.body).toMatchObject({ success: true, status: 'done' });
    expect(afterTransfer.accounts[0].balance).toBe(99_989.88);
  });

  it('KWD (3 decimals): 1.2345 is a bad request and debits nothing; 1.234 is accepted', async () => {
    // prepare
    const { user, transfer } = await withBeneficiary('SANDBOX_KWD');

    // act
    const tooPrecise = await transfer(1.2345);
    const afterRefusal = await user.state();
    const exact = await transfer(1.234);
    const afterTransfer = await user.state();

    // assess
    expect(tooPrecise.status).toBe(400);
    expect(tooPrecise.body).toEqual(failed('BAD_REQUEST'));
    expect(tooPrecise.body.details).toEqual([expect.stringMatching(/^amount: .*3 decimals/)]);
    expect(afterRefusal.accounts[0]).toMatchObject({ currency: 'KWD', balance: 1_000 });
    expect(afterRefusal.transfers).toEqual([]);
    expect(exact.status).toBe(200);
    expect(exact.body).toMatchObject({ success: true, status: 'done' });
    expect(afterTransfer.accounts[0].balance).toBe(998.766);
    expect(afterTransfer.transfers).toEqual([expect.objectContaining({ amount: 1.234, currency: 'KWD' })]);
  });

  it('AED autoflow (no beneficiary bank): 10.123 is a bad request and debits nothing', async () => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');

    // act
    const reply = await user.call('/v1/payment/transfer/autoflow', {
      amount: 10.123,
      senderID: user.accountId,
      action: 'deposit',
      beneficiary: walletInline(),
    });
    const after = await user.state();

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(failed('BAD_REQUEST'));
    expect(after.accounts[0].balance).toBe(100_000);
    expect(after.transfers).toEqual([]);
  });

  it.each([0, -5, -0.01])('amount %s is a bad request naming amount', async (amount) => {
    // prepare
    const { user, transfer } = await withBeneficiary('SANDBOX_BENEFICIARY');

    // act
    const reply = await transfer(amount);
    const after = await user.state();

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(badRequestNaming('amount'));
    expect(after.accounts[0].balance).toBe(100_000);
    expect(after.transfers).toEqual([]);
  });
});
