/**
 * SANDBOX_MASKED over real HTTP: its beneficiary list shows account numbers (or the IBAN, when there
 * is none) masked to their last four characters. The orchestrator takes the wallet's beneficiary
 * only when nothing else could be it: the one new entry after its own creation. A wallet beneficiary
 * the user added before (the list shows it only masked) is ambiguous: the deposit fails
 * BENEFICIARY_AMBIGUOUS, and nothing moves.
 */
import { describe, expect, it } from 'vitest';
import { depositWhen, startDeposit } from '../support/deposits.ts';
import { createUser, stateOf, walletBeneficiary } from '../support/sandbox.ts';

const bankId = 'SANDBOX_MASKED';

describe('SANDBOX_MASKED: a bank that lists accounts masked', () => {
  it('lists the account number, or the IBAN when there is none, as its last four characters', async () => {
    // prepare
    const user = await createUser(bankId, { asyncDelaySeconds: 0 });
    await user.call('/v1/payment/beneficiaries/create', { sync: true, ...walletBeneficiary() });
    await user.call('/v1/payment/beneficiaries/create', {
      sync: true,
      ...walletBeneficiary({ iban: 'AE290330000012345678901', accountNumber: '' }),
    });

    // act
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });

    // assess
    expect(listed.body.beneficiaries.map((entry: { accountNumber: string }) => entry.accountNumber)).toEqual([
      '****3456',
      '****8901',
    ]);
  });

  it('a first deposit creates the beneficiary, takes its id from the list, and completes; a second uses it', async () => {
    // prepare
    const user = await createUser(bankId);

    // act
    const first = await startDeposit(user, { amount: 21 });
    const firstDone = await depositWhen(user, first.body.operationID);
    const second = await startDeposit(user, { amount: 22 });
    const secondDone = await depositWhen(user, second.body.operationID);

    // assess
    expect(firstDone, JSON.stringify(firstDone)).toMatchObject({ status: 'done' });
    expect(secondDone, JSON.stringify(secondDone)).toMatchObject({ status: 'done' });
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });
    expect(listed.body.beneficiaries).toEqual([expect.objectContaining({ accountNumber: '****3456' })]);
    const [beneficiary] = listed.body.beneficiaries;
    const { transfers } = await stateOf(user);
    expect(transfers.map((transfer) => [transfer.amount, transfer.receiver.beneficiaryID])).toEqual([
      [21, beneficiary.id],
      [22, beneficiary.id],
    ]);
  });

  it('the wallet already a beneficiary, listed only masked: fails BENEFICIARY_AMBIGUOUS, nothing moves', async () => {
    // prepare: the user added the wallet's account themselves (same IBAN), under another name
    const user = await createUser(bankId);
    const added = await user.call('/v1/payment/beneficiaries/create', {
      sync: true,
      ...walletBeneficiary({ name: 'My savings' }),
    });
    if (added.body.status !== 'done') throw new Error(`not added: ${JSON.stringify(added.body)}`);

    // act
    const started = await startDeposit(user, { amount: 23 });
    const ended = await depositWhen(user, started.body.operationID);

    // assess
    expect(ended, JSON.stringify(ended)).toMatchObject({
      status: 'failed',
      type: 'BENEFICIARY_AMBIGUOUS',
      msg: expect.stringContaining('masked'),
    });
    expect(await stateOf(user)).toEqual({ balance: 100_000, transfers: [] });
  });
});
