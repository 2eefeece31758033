/**
 * A deposit's item read through its schema (`shared/adapters/deposit-record.ts`): the item as a
 * write leaves it reads back as the deposit; a damaged one fails with its fields named; a field this
 * release does not know is kept, for the write that puts the deposit back; an item of the shape
 * before (its step scratch flat) reads into the groups of this one, for one release.
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
  transfer: { attempt: { at: now, answering: false } },
  stepCounters: { retries: 0 },
  tallies: { reasks: 1 },
  history: [{ step: 'transfer', status: 'initialized', at: now, note: 'on' }],
  createdAt: now,
  updatedAt: now,
  checkAt: now + 60_000,
};

/** Every group of the step scratch, each field set (and `redrives`, beside them at the top). */
const scratch = {
  transfer: { attempt: { at: now, answering: true }, operationId: 'op-7', polls: 2, pollAt: now + 4_000 },
  beneficiaryWork: { lookupAt: now - 1, sendDetails: true, sleepsUntil: now - 2, claimWaits: 3 },
  stepCounters: { retries: 2, busyWaits: 5 },
  tallies: { coolDownRefusals: 1, reasks: 2, registrations: 1 },
  redrives: 4,
} satisfies Partial<Deposit>;

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

  it('reads back a deposit with every group of its step scratch, and a later field of a group', () => {
    const grouped: Deposit = {
      ...deposit,
      step: 'reconcile',
      ...scratch,
    };
    const later = { ...depositItem(grouped), tallies: { ...grouped.tallies, laterTally: 7 } };

    expect(depositFromItem(depositItem(grouped))).toEqual(grouped);
    expect(depositFromItem(later)?.tallies).toEqual({ ...grouped.tallies, laterTally: 7 });
  });

  it('fails on a damaged group, naming the field inside it', () => {
    const damaged = { ...depositItem(deposit), transfer: { polls: -1 }, stepCounters: {} };

    expect(() => depositFromItem(damaged)).toThrow(/dep_1 .*transfer\.polls: .*stepCounters\.retries/);
  });
});

describe('an item of the shape before 2026-11-27 (read for one release)', () => {
  const { transfer: _transfer, stepCounters: _counters, tallies: _tallies, ...facts } = deposit;
  /** The item as the release before wrote it: the step scratch flat on it. */
  const previous = {
    ...depositItem({ ...facts, step: 'reconcile' } as Deposit),
    transferAttempt: { at: now, answering: true },
    transferOperationId: 'op-7',
    polls: 2,
    pollAt: now + 4_000,
    beneficiaryLookupAt: now - 1,
    sendBeneficiaryDetails: true,
    sleepsUntil: now - 2,
    claimWaits: 3,
    retries: 2,
    busyWaits: 5,
    coolDownRefusals: 1,
    reasks: 2,
    registrations: 1,
    redrives: 4,
  };

  it('reads into the groups, and is written back in the new shape', () => {
    const read = depositFromItem(previous);

    expect(read).toEqual({
      ...facts,
      step: 'reconcile',
      ...scratch,
    });
    const written = depositItem(read ?? expect.fail('no deposit'));
    for (const flat of ['transferAttempt', 'polls', 'sleepsUntil', 'retries', 'reasks']) {
      expect(written).not.toHaveProperty(flat);
    }
    expect(depositFromItem(written)).toEqual(read);
  });

  it('makes a group only of fields that are there: a deposit that has not reached its transfer has none', () => {
    const early = { ...depositItem({ ...facts, step: 'resolve-bank' } as Deposit), retries: 0 };

    const read = depositFromItem(early);

    expect(read).toMatchObject({ step: 'resolve-bank', stepCounters: { retries: 0 } });
    expect(read).not.toHaveProperty('transfer');
    expect(read).not.toHaveProperty('beneficiaryWork');
    expect(read).not.toHaveProperty('tallies');
  });

  it('still fails on a damaged one, naming the field where this release keeps it', () => {
    const damaged = { ...previous, polls: 'two', retries: -1, version: '3' };

    expect(() => depositFromItem(damaged)).toThrow(
      /dep_1 .*version: .*transfer\.polls: .*stepCounters\.retries/,
    );
  });
});
