import { describe, expect, it } from 'vitest';
import { createUser, failed, post, request, walletBeneficiary } from '../support/sandbox.ts';

describe('sandbox smoke', () => {
  it('answers health and creates a working user', async () => {
    expect((await request('GET', '/health')).status).toBe(200);
    const user = await createUser('SANDBOX_BENEFICIARY');
    const created = await user.call('/v1/payment/beneficiaries/create', {
      sync: true,
      ...walletBeneficiary(),
    });
    expect(created.body).toMatchObject({ success: true, status: 'done' });
    // The list gives the beneficiary's id (the creation's reference is a receipt number).
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });
    const transfer = await user.call('/v1/payment/transfer/create', {
      sync: true,
      amount: 25.5,
      senderID: user.accountId,
      receiverID: listed.body.beneficiaries[0].id,
    });
    expect(transfer.body).toMatchObject({ success: true, status: 'done' });
    expect((await user.state()).accounts[0].balance).toBe(99_974.5);
    expect((await post('/v1/metadata/accounts/get', 'nope')).body).toEqual(failed('BAD_REQUEST'));
  });
});
