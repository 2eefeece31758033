/**
 * Transfers, scenario 1: to a created beneficiary (SANDBOX_BENEFICIARY); minimums, balance checks,
 * ownership of ids. The other banks and exact money: `sandbox-transfers-banks.test.ts`. In process:
 * the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import { TransferResponse } from '#shared/provider/interface/responses';
import { createUser, givenBeneficiary, stateOf, walletIban } from '../support/in-process-sandbox.ts';
import { autoflow, failedOperation, sameBankIban, transfer } from '../support/sandbox-transfers.ts';

describe('scenario 1: transfer to a created beneficiary (SANDBOX_BENEFICIARY)', () => {
  it('transfers to the wallet: done with a reference, debited exactly, recorded as local', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const receiverID = await givenBeneficiary(user);

    // act
    const reply = await transfer(user, { amount: 123.45, receiverID });

    // assess
    expect(reply.status).toBe(200);
    const done = TransferResponse.parse(reply.body);
    expect(done).toEqual({
      operationID: expect.stringMatching(/\S/),
      success: true,
      status: 'done',
      reference: expect.stringMatching(/\S/),
    });
    const { balance, transfers } = await stateOf(user);
    expect(balance).toBe(99_876.55);
    expect(transfers).toEqual([
      expect.objectContaining({
        reference: done.reference,
        operationID: done.operationID,
        senderID: user.accountId,
        amount: 123.45,
        currency: 'AED',
        type: 'local',
        receiver: {
          beneficiaryID: receiverID,
          name: 'Acme Wallet LLC',
          iban: walletIban,
          swiftCode: 'WALTAEAD',
        },
      }),
    ]);
  });

  it('transfers to a same-bank beneficiary as type same, with its minimum of 1 AED', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const receiverID = await givenBeneficiary(user, { iban: sameBankIban, swiftCode: 'SBXBAEAD' });

    // act
    const reply = await transfer(user, { amount: 1, receiverID });

    // assess
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ success: true, status: 'done' });
    const { balance, transfers } = await stateOf(user);
    expect(balance).toBe(99_999);
    expect(transfers).toEqual([
      expect.objectContaining({ reference: reply.body.reference, amount: 1, type: 'same' }),
    ]);
  });

  it('refuses 0.99 AED to a same-bank beneficiary: 422 AMOUNT_BELOW_MINIMUM', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const receiverID = await givenBeneficiary(user, { iban: sameBankIban, swiftCode: 'SBXBAEAD' });

    // act
    const reply = await transfer(user, { amount: 0.99, receiverID });

    // assess
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual(failedOperation('AMOUNT_BELOW_MINIMUM'));
    expect(await stateOf(user)).toEqual({ balance: 100_000, transfers: [] });
  });

  it('refuses 9.99 AED to a local beneficiary (minimum 10): 422 AMOUNT_BELOW_MINIMUM, nothing debited', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const receiverID = await givenBeneficiary(user);

    // act
    const reply = await transfer(user, { amount: 9.99, receiverID });

    // assess
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual(failedOperation('AMOUNT_BELOW_MINIMUM'));
    expect(await stateOf(user)).toEqual({ balance: 100_000, transfers: [] });
  });

  it('accepts exactly the local minimum of 10 AED', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const receiverID = await givenBeneficiary(user);

    // act
    const reply = await transfer(user, { amount: 10, receiverID });

    // assess
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ success: true, status: 'done' });
    expect((await stateOf(user)).balance).toBe(99_990);
  });

  it('refuses more than the balance: 422 INSUFFICIENT_BALANCE, balance unchanged, nothing recorded', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY', { balance: 50 });
    const receiverID = await givenBeneficiary(user);

    // act
    const reply = await transfer(user, { amount: 60, receiverID });

    // assess
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual(failedOperation('INSUFFICIENT_BALANCE'));
    expect(await stateOf(user)).toEqual({ balance: 50, transfers: [] });
  });

  it('transfers exactly the whole balance, leaving 0', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY', { balance: 50 });
    const receiverID = await givenBeneficiary(user);

    // act
    const reply = await transfer(user, { amount: 50, receiverID });

    // assess
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ success: true, status: 'done' });
    const { balance, transfers } = await stateOf(user);
    expect(balance).toBe(0);
    expect(transfers).toEqual([expect.objectContaining({ reference: reply.body.reference, amount: 50 })]);
  });

  it('refuses an unknown senderID: 404 INVALID_ACCOUNT_ID', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const receiverID = await givenBeneficiary(user);

    // act
    const reply = await transfer(user, { amount: 20, receiverID, senderID: 'acc_DOES_NOT_EXIST' });

    // assess
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(failedOperation('INVALID_ACCOUNT_ID'));
    expect(await stateOf(user)).toEqual({ balance: 100_000, transfers: [] });
  });

  it("refuses another user's account as senderID: 404 INVALID_ACCOUNT_ID, neither is debited", async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const other = await createUser('SANDBOX_BENEFICIARY');
    const receiverID = await givenBeneficiary(user);

    // act
    const reply = await transfer(user, { amount: 20, receiverID, senderID: other.accountId });

    // assess
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(failedOperation('INVALID_ACCOUNT_ID'));
    expect(await stateOf(user)).toEqual({ balance: 100_000, transfers: [] });
    expect(await stateOf(other)).toEqual({ balance: 100_000, transfers: [] });
  });

  it('refuses an unknown receiverID: 404 INVALID_BENEFICIARY_ID', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const reply = await transfer(user, { amount: 20, receiverID: 'ben_DOES_NOT_EXIST' });

    // assess
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(failedOperation('INVALID_BENEFICIARY_ID'));
    expect(await stateOf(user)).toEqual({ balance: 100_000, transfers: [] });
  });

  it('refuses the inline autoflow: 422 BENEFICIARY_REQUIRED, nothing debited', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const reply = await autoflow(user, { amount: 20 });

    // assess
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual(failedOperation('BENEFICIARY_REQUIRED'));
    expect(await stateOf(user)).toEqual({ balance: 100_000, transfers: [] });
  });
});
