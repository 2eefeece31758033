/**
 * IBANs are checked per country (ibantools): each IBAN below has correct mod-97 check digits, so only
 * its country's length or national (BBAN) format makes it invalid. On beneficiary
 * creation and on the inline transfer: 400 INVALID_IBAN, nothing created, nothing debited.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import {
  createUser,
  failed,
  ibanFor,
  stateOf,
  walletBeneficiary,
  walletInline,
} from '../support/in-process-sandbox.ts';

const wrongForTheirCountry = [
  ['a UAE IBAN one digit short (AE has 23 characters)', ibanFor('AE', '033123456789012345')],
  ['a UAE IBAN one digit long', ibanFor('AE', '03312345678901234567')],
  ['a UAE IBAN with letters where its BBAN has digits', ibanFor('AE', '033ABCDEFGHIJ012345')],
  ['a Kuwaiti IBAN of a UAE length', ibanFor('KW', '0331234567890123456')],
  ['an IBAN of a country without IBANs', ibanFor('US', 'SVBKUS6S3300958879')],
];

describe('IBANs valid only by their check digits are refused', () => {
  it.each(wrongForTheirCountry)('beneficiary creation: %s', async (_name, iban) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const created = await user.call('/v1/payment/beneficiaries/create', {
      sync: true,
      ...walletBeneficiary({ iban }),
    });
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });

    // assess
    expect(created.status).toBe(400);
    expect(created.body).toEqual(failed('INVALID_IBAN'));
    expect(listed.body.beneficiaries).toEqual([]);
  });

  it.each(wrongForTheirCountry)('inline transfer: %s', async (_name, iban) => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');

    // act
    const reply = await user.call('/v1/payment/transfer/create', {
      amount: 10,
      senderID: user.accountId,
      action: 'deposit',
      beneficiary: walletInline({ iban }),
    });
    const { balance, transfers } = await stateOf(user);

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(failed('INVALID_IBAN'));
    expect(balance).toBe(user.balance);
    expect(transfers).toEqual([]);
  });

  it('a valid IBAN of another country (Kuwait, 30 characters) is accepted', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const created = await user.call('/v1/payment/beneficiaries/create', {
      sync: true,
      ...walletBeneficiary({ iban: 'KW81CBKU0000000000001234560101', country: 'Kuwait' }),
    });

    // assess
    expect(created.body).toMatchObject({ status: 'done' });
  });
});
