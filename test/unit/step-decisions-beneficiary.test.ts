/**
 * The steps' decisions, from tables, as a `Next` with no port at all: ensure-beneficiary's from
 * what its calls found, and the cool-down's wait.
 */
import { describe, expect, it } from 'vitest';
import type { Question } from '#shared/deposits/journey/input';
import type { Deposit } from '#shared/deposits/model/deposit';
import type { Found } from '#shared/deposits/steps/beneficiary-calls';
import { settled } from '#shared/deposits/steps/beneficiary-found';
import { whileCoolingDown } from '#shared/deposits/steps/wait-cooldown';
import type { ProviderRefusal } from '#shared/provider/client';
import { banks } from '../support/deposit-world.ts';
import { deposit, now, refusal } from '../support/step-decisions.ts';

describe('ensure-beneficiary: what follows from what the calls found', () => {
  const claim = {
    ownerKey: 'owner',
    walletAccountId: 'wallet-aed',
    state: 'creating' as const,
    depositId: 'dep_1',
    claimedAt: now - 1_000,
    fittingBeforeCreation: ['b-0'],
  };
  const at = deposit({ step: 'ensure-beneficiary', beneficiaryId: undefined, bank: banks.coolDown });
  const plan: Parameters<typeof settled>[1] = {
    claim,
    created: undefined,
    listAnswer: undefined,
    createAnswer: undefined,
    listFirst: true,
    observed: { ambiguous: false },
  };
  const question = {
    status: 'user_input_required' as const,
    id: 'op-q',
    userInputs: [{ id: 'otp', index: 0, query: 'OTP?', answer: '' }],
    response: { success: true, status: 'user_input_required' },
  } as unknown as Question;

  it.each<[string, Deposit, Parameters<typeof settled>[1], Found | ProviderRefusal, unknown]>([
    [
      'listed: recorded as created (its cool-down from now), used, on to the cool-down wait',
      at,
      plan,
      { kind: 'listed', id: 'ben-9', approved: false },
      expect.objectContaining({
        kind: 'move',
        changes: expect.objectContaining({
          step: 'wait-cooldown',
          beneficiaryId: 'ben-9',
          beneficiaryWork: { sendDetails: true },
        }),
        event: { type: 'deposit.cooling_down', data: { resumesAt: new Date(now + 3_600_000).toISOString() } },
        send: { step: 'wait-cooldown' },
        before: [
          {
            claims: 'update',
            claim: {
              ownerKey: 'owner',
              walletAccountId: 'wallet-aed',
              state: 'created',
              depositId: 'dep_1',
              claimedAt: now - 1_000,
              beneficiaryId: 'ben-9',
              cooldownUntil: now + 3_600_000,
            },
          },
        ],
      }),
    ],
    [
      'listed and approved: straight to the transfer',
      at,
      plan,
      { kind: 'listed', id: 'ben-9', approved: true },
      expect.objectContaining({ kind: 'move', send: { step: 'transfer' } }),
    ],
    [
      'created, its id not listed yet: recorded, looked up in 30 s',
      deposit({ ...at, bank: banks.beneficiary }),
      plan,
      { kind: 'created' },
      expect.objectContaining({
        kind: 'move',
        wake: { step: 'ensure-beneficiary', at: now + 30_000 },
        before: [
          { claims: 'update', claim: expect.objectContaining({ state: 'created', lookupAt: now + 30_000 }) },
        ],
      }),
    ],
    [
      'created at a bank that hides new ones: waited out in wait-cooldown, the caller told',
      deposit({ ...at, bank: banks.hiddenCoolDown }),
      plan,
      { kind: 'created' },
      expect.objectContaining({
        kind: 'move',
        changes: expect.objectContaining({ step: 'wait-cooldown', cooldownUntil: now + 86_401_000 }),
        send: { step: 'wait-cooldown' },
      }),
    ],
    [
      'a question on the creation: asked, the claim held while it waits',
      at,
      plan,
      { kind: 'question', operation: 'create', question },
      expect.objectContaining({
        kind: 'ask',
        operation: 'create',
        also: {},
        after: [{ claims: 'hold-while-asked' }],
      }),
    ],
    [
      'a question on the list after the creation: a look-up when answered',
      at,
      plan,
      { kind: 'question', operation: 'list', question, afterCreation: true },
      expect.objectContaining({
        kind: 'ask',
        operation: 'list',
        also: { beneficiaryWork: { lookupAt: now } },
      }),
    ],
    [
      'a look-up that does not find it: unresolved, its record forgotten',
      at,
      { ...plan, created: { ...claim, state: 'created' as const } },
      { kind: 'unlisted' },
      expect.objectContaining({
        kind: 'fail',
        type: 'BENEFICIARY_UNRESOLVED',
        after: [{ claims: 'forget' }],
      }),
    ],
    [
      'a look-up of an answered creation that never ran: created again',
      at,
      { ...plan, created: { ...claim, state: 'created' as const, unconfirmed: true } },
      { kind: 'unlisted' },
      expect.objectContaining({ kind: 'ask-again', before: [{ claims: 'forget' }] }),
    ],
    [
      'only masked entries that may be it: ambiguous',
      at,
      plan,
      { kind: 'ambiguous' },
      expect.objectContaining({ kind: 'fail', type: 'BENEFICIARY_AMBIGUOUS' }),
    ],
    [
      'it exists, not listed first: looked up at once',
      at,
      { ...plan, listFirst: false },
      refusal('BENEFICIARY_ALREADY_EXISTS'),
      expect.objectContaining({
        kind: 'move',
        changes: expect.objectContaining({ beneficiaryWork: { lookupAt: now } }),
      }),
    ],
    [
      'it exists, though the list did not show it: unresolved',
      at,
      plan,
      refusal('BENEFICIARY_ALREADY_EXISTS'),
      expect.objectContaining({ kind: 'fail', type: 'BENEFICIARY_UNRESOLVED' }),
    ],
    [
      'the answered creation refused as spent: the list decides, later',
      at,
      { ...plan, listFirst: false, createAnswer: { id: 'op-c', userInputs: [] } as never },
      refusal('INVALID_OPERATION_ID'),
      expect.objectContaining({
        kind: 'move',
        before: [{ claims: 'update', claim: expect.objectContaining({ unconfirmed: true }) }],
      }),
    ],
    [
      'the answers came late: asked again',
      at,
      { ...plan, listAnswer: { id: 'op-l', userInputs: [] } as never },
      refusal('USER_INPUT_EXPIRED'),
      expect.objectContaining({ kind: 'ask-again', step: 'ensure-beneficiary' }),
    ],
  ])('%s', (_, given, planned, found, decided) => {
    expect(settled(given, planned, found, now)).toEqual(decided);
  });
});

describe('wait-cooldown: what follows while the cool-down runs', () => {
  const cooling = { step: 'wait-cooldown' as const, cooldownUntil: now + 3_600_000 };
  it.each([
    [
      "a deposit that joined a source's wake-up",
      deposit(cooling),
      true,
      { kind: 'nothing', why: "a payment source's wake-up for the same instant wakes it" },
    ],
    [
      'a deposit whose beneficiary id is known: the transfer at the end',
      deposit(cooling),
      false,
      { kind: 'wake', step: 'transfer', at: now + 3_600_000 },
    ],
    [
      'a bank that hides new beneficiaries, the id not known yet: the look-up at the end',
      deposit({ ...cooling, beneficiaryId: undefined }),
      false,
      { kind: 'wake', step: 'ensure-beneficiary', at: now + 3_600_000 },
    ],
    [
      'a source that joined none arms the same wake-up',
      deposit({ ...cooling, purpose: 'source' }),
      false,
      { kind: 'wake', step: 'transfer', at: now + 3_600_000 },
    ],
    [
      'no end on record: woken now',
      deposit({ ...cooling, cooldownUntil: undefined }),
      false,
      { kind: 'wake', step: 'transfer', at: now },
    ],
  ])('%s', (_case, given, joined, expected) => {
    expect(whileCoolingDown(given, joined, now)).toMatchObject(expected);
  });
});
