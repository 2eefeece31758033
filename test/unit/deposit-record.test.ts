/**
 * A deposit's item read through its schema (`shared/adapters/deposit-record.ts`): the item as a
 * write leaves it reads back as the deposit; a damaged one fails with its fields named; a field this
 * release does not know is kept, for the write that puts the deposit back.
 */
import { describe, expect, it } from 'vitest';
import { depositFromItem } from '#shared/adapters/deposit-record';
import { depositItem } from '#shared/adapters/deposits-table-items';
import type { Deposit } from '#shared/deposits/model/deposit';

const now = Date.parse('2026-11-27T00:00:00Z');
const deposit: Deposit = {
  id: 'dep_1',
  ownerKey: 'owner',
  readerKey: 'reader',
  idempotencyKey: 'key',
  fingerprint: 'f',
  status: 'initialized',
  step: 'transfer',
  version: 3,
  amountMinor: 2550,
  currency: 'AED',
  senderId: 'acc-1',
  walletAccountId: 'wallet-aed',
  bank: {
    swiftCode: 'SBXBAEAD',
    bankName: 'Sandbox Bank',
    isCreateBeneficiaryEndpointRequired: true,
    hidesNewBeneficiaries: false,
    coolDownMs: 0,
  },
  beneficiaryId: 'ben-1',
  leaseHeld: 'dep_1#call',
  transferAttempt: { at: now, answering: false },
  retries: 0,
  history: [{ step: 'transfer', status: 'initialized', at: now, note: 'on' }],
  createdAt: now,
  updatedAt: now,
  checkAt: now + 60_000,
};

describe('a deposit read through its schema', () => {
  it('reads back the deposit its item was written from, without the keys and index attributes', () => {
    expect(depositFromItem(depositItem(deposit))).toEqual(deposit);
    expect(depositFromItem(undefined)).toBeUndefined();
  });

  it('fails on a damaged item, naming each field that is wrong', () => {
    const damaged = { ...depositItem(deposit), version: '3', currency: 'XXX', history: [{ at: 'now' }] };

    expect(() => depositFromItem(damaged)).toThrow(/dep_1 .*version: .*currency: .*history\.0\.step/);
  });

  it('keeps a field it does not know', () => {
    const later = { ...depositItem(deposit), laterField: { kept: true } };

    expect(depositFromItem(later)).toMatchObject({ laterField: { kept: true } });
  });
});
