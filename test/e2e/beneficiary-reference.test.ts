/**
 * The spec does not say that a beneficiary creation's `reference` is the beneficiary's id. In the
 * sandbox it never is, at any bank (a receipt number of the bank's): the deposit must take the id
 * from the list, matched on the wallet's account identifiers, and the transfer go to it.
 */
import { describe, expect, it } from 'vitest';
import { depositWhen, startDeposit } from '../support/deposits.ts';
import { createUser, stateOf, walletBeneficiary } from '../support/sandbox.ts';

const bankId = 'SANDBOX_RECEIPT_REFERENCE';

describe('a beneficiary creation answers a reference that is not the id', () => {
  it.each(['SANDBOX_BENEFICIARY', 'SANDBOX_FIRST_DETAILS', 'SANDBOX_RECEIPT_REFERENCE', 'SANDBOX_KWD'])(
    '%s: answers a receipt that the list does not show as an id',
    async (bank) => {
      // prepare
      const user = await createUser(bank);

      // act
      const created = await user.call('/v1/payment/beneficiaries/create', {
        sync: true,
        ...walletBeneficiary(),
      });
      const reference = created.body.reference;
      const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });

      // assess
      const ids = listed.body.beneficiaries.map((beneficiary: { id: string }) => beneficiary.id);
      expect(ids).toHaveLength(1);
      expect(ids).not.toContain(reference);
      const refused = await user.call('/v1/payment/transfer/create', {
        sync: true,
        amount: 10,
        senderID: user.accountId,
        receiverID: reference,
      });
      expect(reference).toEqual(expect.stringMatching(/\S/));
      expect(refused.status).toBe(404);
      expect(refused.body).toMatchObject({
        success: false,
        status: 'failed',
        type: 'INVALID_BENEFICIARY_ID',
      });
    },
  );

  it('completes deposits through the listed id: one beneficiary, each transfer to it', async () => {
    // prepare
    const user = await createUser(bankId);

    // act
    const first = await startDeposit(user, { amount: 25 });
    const firstDone = await depositWhen(user, first.body.operationID);
    const second = await startDeposit(user, { amount: 26 });
    const secondDone = await depositWhen(user, second.body.operationID);

    // assess
    expect([firstDone.status, secondDone.status, firstDone.type]).toEqual(['done', 'done', undefined]);
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });
    expect(listed.body.beneficiaries).toHaveLength(1);
    const [beneficiary] = listed.body.beneficiaries;
    const { transfers } = await stateOf(user);
    expect(transfers.map((transfer) => [transfer.amount, transfer.receiver.beneficiaryID])).toEqual([
      [25, beneficiary.id],
      [26, beneficiary.id],
    ]);
  });
});
