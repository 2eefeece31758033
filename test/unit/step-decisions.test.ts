/**
 * The steps' decisions, from tables: what follows each answer of the bank in the transfer,
 * reconcile, resolve-bank and ensure-beneficiary, and the cool-down's wait, as a `Next` (`shared/deposits/journey/next.ts`), with no
 * port at all. What `apply` then writes, sends and frees is next-apply.test.ts; the steps through
 * their fakes, end to end in process, are the deposits-*.test.ts files.
 */
import { describe, expect, it } from 'vitest';
import { localWallets } from '#infra/local/wallets';
import type { Question } from '#shared/deposits/journey/input';
import type { Deposit } from '#shared/deposits/model/deposit';
import { walletAccounts } from '#shared/deposits/model/wallets';
import type { Found } from '#shared/deposits/steps/beneficiary-calls';
import { settled } from '#shared/deposits/steps/beneficiary-found';
import { afterRead } from '#shared/deposits/steps/reconcile';
import { afterMetadata, type MetadataSaid, withBank } from '#shared/deposits/steps/resolve-bank';
import { afterSubmission, beforeTheCall, type Call, type Submission } from '#shared/deposits/steps/transfer';
import { transferDone, transferRefused } from '#shared/deposits/steps/transfer-outcomes';
import { whileCoolingDown } from '#shared/deposits/steps/wait-cooldown';
import { ProviderRefusal, ProviderUnknownOutcome } from '#shared/provider/client';
import { banks, settings } from '../support/deposit-world.ts';
import { metadata } from '../support/fake-provider.ts';

const now = Date.parse('2026-11-26T12:00:00Z');
const clock = { now: () => now, sleep: async () => undefined };

function deposit(overrides: Partial<Deposit> = {}): Deposit {
  return {
    id: 'dep_1',
    ownerKey: 'owner',
    readerKey: 'reader',
    idempotencyKey: 'key',
    fingerprint: 'f',
    status: 'initialized',
    step: 'transfer',
    version: 4,
    amountMinor: 2550,
    currency: 'AED',
    senderId: 'acc-1',
    walletAccountId: 'wallet-aed',
    bank: banks.beneficiary,
    beneficiaryId: 'ben-1',
    stepCounters: { retries: 0 },
    history: [],
    createdAt: now - 60_000,
    updatedAt: now - 1_000,
    ...overrides,
  } as Deposit;
}

const refusal = (
  type: string,
  extra: { status?: number; retryAfterMs?: number; operationId?: string } = {},
) =>
  new ProviderRefusal(
    type,
    `${type} said the bank`,
    extra.status ?? 400,
    extra.operationId,
    extra.retryAfterMs,
  );

const call: Call = { lease: 'dep_1#transfer', answer: undefined, now };
const cleared = {
  transfer: undefined,
  pendingInput: undefined,
  sealedAnswers: undefined,
};

describe('transfer: before the call', () => {
  it.each([
    ['a deposit with no attempt on record', deposit(), undefined],
    [
      'an attempt of another run that may still be in flight',
      deposit({ transfer: { attempt: { at: now - 1_000, answering: false } } }),
      { kind: 'nothing', why: expect.any(String) },
    ],
    [
      'an attempt on record past the stall time: money may have moved',
      deposit({ transfer: { attempt: { at: now - settings.stallAfterMs, answering: false } } }),
      { kind: 'fail', type: 'TRANSFER_OUTCOME_UNKNOWN', msg: expect.stringMatching(/interrupted/) },
    ],
    [
      'a payment source: ready, and its followers woken once written',
      deposit({ purpose: 'source' }),
      expect.objectContaining({
        kind: 'move',
        changes: { status: 'done', step: 'completed' },
        event: { type: 'deposit.done', data: {} },
        after: [{ followers: 'wake' }],
      }),
    ],
  ])('%s', (_, given, decided) => {
    expect(beforeTheCall(given, now, settings.stallAfterMs)).toEqual(decided);
  });
});

describe('transfer: what follows the submission', () => {
  const attempting = deposit({ transfer: { attempt: { at: now, answering: false } } });
  const keep = { lease: 'keep', held: call.lease };
  const release = { lease: 'release', held: call.lease };
  it.each<[string, Submission, Call, unknown]>([
    [
      'accepted: the lease kept, the operation recorded, read after a second',
      { status: 'initialized', id: 'op-7', response: {} },
      call,
      {
        kind: 'move',
        changes: expect.objectContaining({
          step: 'reconcile',
          // beside the attempt, which stays
          transfer: {
            attempt: { at: now, answering: false },
            operationId: 'op-7',
            polls: 0,
            pollAt: now + 1_000,
          },
        }),
        note: 'transfer submitted as operation op-7',
        send: { step: 'reconcile', delaySeconds: 1 },
        before: [keep],
      },
    ],
    [
      'done: the lease freed, done with the reference, the beneficiary marked used',
      { status: 'done', id: 'op-7', response: { reference: 'REF-1' } },
      call,
      expect.objectContaining({
        kind: 'move',
        changes: expect.objectContaining({ status: 'done', step: 'completed', reference: 'REF-1' }),
        event: { type: 'deposit.done', data: { reference: 'REF-1' } },
        before: [release],
        after: [{ claims: 'mark-used' }],
      }),
    ],
    [
      'done without a reference: unknown, for an operator',
      { status: 'done', id: 'op-7', response: {} },
      call,
      expect.objectContaining({ kind: 'fail', type: 'TRANSFER_OUTCOME_UNKNOWN', before: [release] }),
    ],
    [
      'a question: the deposit asks its caller, keeping the lease, its attempt dropped',
      {
        status: 'user_input_required',
        id: 'op-7',
        userInputs: [{ id: 'otp', index: 0, query: 'OTP?', answer: '' }],
        response: {},
      },
      call,
      expect.objectContaining({
        kind: 'ask',
        step: 'transfer',
        operation: 'transfer',
        lease: call.lease,
        dropped: { transfer: undefined },
      }),
    ],
    [
      'no readable answer: unknown, for an operator',
      { failed: new ProviderUnknownOutcome('timeout', 'no answer') },
      call,
      expect.objectContaining({ kind: 'fail', type: 'TRANSFER_OUTCOME_UNKNOWN', before: [release] }),
    ],
    [
      'answers refused as spent: the answered operation is read',
      { failed: refusal('INVALID_OPERATION_ID') },
      { ...call, answer: { id: 'op-asked', userInputs: [] } },
      expect.objectContaining({
        kind: 'move',
        changes: expect.objectContaining({
          step: 'reconcile',
          transfer: expect.objectContaining({ operationId: 'op-asked' }),
        }),
        before: [keep],
      }),
    ],
    [
      'a refusal: the lease freed, then what the refusal says',
      { failed: refusal('INSUFFICIENT_BALANCE') },
      call,
      {
        kind: 'fail',
        type: 'INSUFFICIENT_BALANCE',
        msg: expect.any(String),
        changes: cleared,
        before: [release],
      },
    ],
  ])('%s', (_, submission, made, decided) => {
    expect(afterSubmission(attempting, submission, made, settings)).toEqual(decided);
  });
});

describe('transfer: what a refusal says', () => {
  const submitted = deposit({ transfer: { operationId: 'op-7', attempt: { at: now, answering: false } } });
  const own = { lease: 'release-own' };
  it.each<[string, Deposit, ProviderRefusal, unknown]>([
    [
      'busy: the transfer again later, no sooner than its Retry-After',
      submitted,
      refusal('OPERATION_IN_PROGRESS', { status: 409, retryAfterMs: 5_000 }),
      {
        kind: 'later',
        step: 'transfer',
        changes: { ...cleared, step: 'transfer' },
        retryAfterMs: 5_000,
        before: [own],
      },
    ],
    [
      'a 429 of any type: later too',
      deposit(),
      refusal('SOMETHING', { status: 429 }),
      { kind: 'later', step: 'transfer', changes: { ...cleared, step: 'transfer' }, before: [] },
    ],
    [
      'details wanted: the transfer again, with them',
      deposit(),
      refusal('BENEFICIARY_DETAILS_REQUIRED'),
      expect.objectContaining({
        kind: 'move',
        changes: { ...cleared, step: 'transfer', beneficiaryWork: { sendDetails: true } },
        send: { step: 'transfer' },
      }),
    ],
    [
      'details wanted again though sent: failed',
      deposit({ beneficiaryWork: { sendDetails: true } }),
      refusal('BENEFICIARY_DETAILS_REQUIRED'),
      expect.objectContaining({ kind: 'fail', type: 'BENEFICIARY_DETAILS_REQUIRED' }),
    ],
    [
      'a cool-down: waited out (a minute at least), the claim corrected, the caller told',
      deposit(),
      refusal('BENEFICIARY_COOL_DOWN_PERIOD'),
      expect.objectContaining({
        kind: 'move',
        changes: expect.objectContaining({
          step: 'wait-cooldown',
          cooldownUntil: now + 60_000,
          tallies: { coolDownRefusals: 1 },
        }),
        event: { type: 'deposit.cooling_down', data: { resumesAt: new Date(now + 60_000).toISOString() } },
        send: { step: 'wait-cooldown' },
        before: [{ claims: 'cool-down', beneficiaryId: 'ben-1', until: now + 60_000 }],
      }),
    ],
    [
      'a cool-down past the retry limit: failed',
      deposit({ tallies: { coolDownRefusals: settings.maxRetries } }),
      refusal('BENEFICIARY_COOL_DOWN_PERIOD'),
      expect.objectContaining({ kind: 'fail', type: 'BENEFICIARY_COOL_DOWN_PERIOD' }),
    ],
    [
      'the beneficiary gone: forgotten, registered again',
      deposit(),
      refusal('INVALID_BENEFICIARY_ID'),
      expect.objectContaining({
        kind: 'move',
        changes: expect.objectContaining({
          step: 'ensure-beneficiary',
          beneficiaryId: undefined,
          beneficiaryWork: undefined,
          tallies: { registrations: 1 },
        }),
        send: { step: 'ensure-beneficiary' },
        before: [{ claims: 'forget', beneficiaryId: 'ben-1' }],
      }),
    ],
    [
      'the beneficiary gone again: forgotten, failed',
      deposit({ tallies: { registrations: 1 } }),
      refusal('INVALID_BENEFICIARY_ID'),
      expect.objectContaining({ kind: 'fail', before: [{ claims: 'forget', beneficiaryId: 'ben-1' }] }),
    ],
    [
      'the details mismatched: forgotten, failed',
      deposit(),
      refusal('BENEFICIARY_DETAILS_MISMATCH'),
      expect.objectContaining({ kind: 'fail', before: [{ claims: 'forget', beneficiaryId: 'ben-1' }] }),
    ],
    [
      'the bank’s metadata contradicted: the remembered bank forgotten, failed',
      deposit(),
      refusal('AMOUNT_BELOW_MINIMUM'),
      expect.objectContaining({ kind: 'fail', type: 'AMOUNT_BELOW_MINIMUM', before: [{ banks: 'forget' }] }),
    ],
    [
      'the wait for the answer ran out: asked again',
      deposit(),
      refusal('USER_INPUT_EXPIRED'),
      expect.objectContaining({ kind: 'ask-again', step: 'transfer' }),
    ],
  ])('%s', (_, given, refused, decided) => {
    expect(transferRefused(given, refused, now, settings)).toEqual(decided);
  });

  it('frees the connection the bank held for an accepted transfer, done', () => {
    expect(transferDone(deposit({ transfer: { operationId: 'op-7' } }), 'REF').kind).toBe('move');
    expect(transferDone(deposit({ transfer: { operationId: 'op-7' } }), 'REF')).toMatchObject({
      before: [{ lease: 'release-own' }],
    });
    expect(transferDone(deposit({ bank: banks.noBeneficiary }), 'REF')).toMatchObject({
      before: [],
      after: [],
    });
  });
});

describe('reconcile: what follows a read of the operation', () => {
  const reading = deposit({
    step: 'reconcile',
    transfer: { operationId: 'op-7', polls: 2, attempt: { at: now - 10_000, answering: false } },
  });
  const ctx = { clock, settings };
  it.each<[string, Deposit, Parameters<typeof afterRead>[1], unknown]>([
    [
      'no operation on record: unknown',
      deposit({ step: 'reconcile' }),
      undefined,
      expect.objectContaining({ kind: 'fail', type: 'TRANSFER_OUTCOME_UNKNOWN' }),
    ],
    [
      'still running: read again after a doubled delay',
      reading,
      { status: 'initialized', id: 'op-7', response: { success: true, status: 'initialized' } },
      {
        kind: 'move',
        // the attempt and the operation kept
        changes: { transfer: { ...reading.transfer, polls: 3, pollAt: now + 8_000 } },
        note: 'transfer outcome, read 3: still running',
        send: { step: 'reconcile', delaySeconds: 8 },
      },
    ],
    [
      'done: done with the reference, the connection freed',
      reading,
      { status: 'done', id: 'op-7', response: { success: true, status: 'done', reference: 'REF-2' } },
      expect.objectContaining({
        kind: 'move',
        event: { type: 'deposit.done', data: { reference: 'REF-2' } },
        before: [{ lease: 'release-own' }],
      }),
    ],
    [
      'a transfer refusal naming the operation: what the refusal says',
      reading,
      { failed: refusal('INSUFFICIENT_BALANCE', { operationId: 'op-7' }) },
      expect.objectContaining({ kind: 'fail', type: 'INSUFFICIENT_BALANCE' }),
    ],
    [
      'a refusal naming another operation: read again, it says nothing of the transfer',
      reading,
      { failed: refusal('INSUFFICIENT_BALANCE', { operationId: 'op-other' }) },
      expect.objectContaining({
        kind: 'move',
        changes: { transfer: expect.objectContaining({ polls: 3 }) },
      }),
    ],
    [
      'a refused read asking for time: no sooner than its Retry-After',
      reading,
      { failed: refusal('TOO_MANY_REQUESTS', { status: 429, retryAfterMs: 20_000 }) },
      expect.objectContaining({ kind: 'move', send: { step: 'reconcile', delaySeconds: 20 } }),
    ],
    [
      'a failed read past the last poll: unknown, for an operator',
      deposit({ ...reading, transfer: { ...reading.transfer, polls: settings.maxPolls - 1 } }),
      { failed: new ProviderUnknownOutcome('network', 'reset') },
      expect.objectContaining({
        kind: 'fail',
        type: 'TRANSFER_OUTCOME_UNKNOWN',
        msg: expect.stringMatching(/30 reads/),
      }),
    ],
    [
      'a question in time: asked, its time counted from the submission',
      reading,
      {
        status: 'user_input_required',
        id: 'op-7',
        userInputs: [{ id: 'otp', index: 0, query: 'OTP?', answer: '' }],
        response: { success: true, status: 'user_input_required' },
      },
      expect.objectContaining({ kind: 'ask', step: 'transfer', since: now - 10_000 }),
    ],
    [
      'a question found too late: asked again',
      deposit({
        ...reading,
        transfer: { ...reading.transfer, attempt: { at: now - settings.inputTtlMs, answering: false } },
      }),
      {
        status: 'user_input_required',
        id: 'op-7',
        userInputs: [{ id: 'otp', index: 0, query: 'OTP?', answer: '' }],
        response: { success: true, status: 'user_input_required' },
      },
      expect.objectContaining({ kind: 'ask-again', step: 'transfer' }),
    ],
  ])('%s', (_, given, read, decided) => {
    expect(afterRead(given, read, ctx)).toEqual(decided);
  });
});

describe('resolve-bank: what follows the bank’s metadata', () => {
  const wallet = walletAccounts(localWallets).find((account) => account.id === 'wallet-aed');
  if (!wallet) throw new Error('no wallet-aed');
  const bankSays = (overrides: Record<string, unknown> = {}) => ({ ...metadata, ...overrides });
  const done = (accountsMetadata: unknown) =>
    ({
      status: 'done',
      id: 'op-m',
      response: { success: true, status: 'done', accountsMetadata },
    }) as MetadataSaid['metadata'];
  const at = deposit({ step: 'resolve-bank', bank: undefined, beneficiaryId: undefined });
  const freed = { lease: 'release', held: 'lease-1' };

  it.each<[string, MetadataSaid, unknown]>([
    [
      'a bank that wants beneficiaries: remembered, on to ensure-beneficiary',
      { metadata: done(bankSays()), lease: 'lease-1', answered: false },
      expect.objectContaining({
        kind: 'move',
        changes: expect.objectContaining({
          step: 'ensure-beneficiary',
          bank: expect.objectContaining({ bankName: 'Sandbox Bank' }),
        }),
        send: { step: 'ensure-beneficiary' },
        // The call's lease goes with the move (handed to ensure-beneficiary: next-apply.test.ts).
        lease: 'lease-1',
        before: [{ banks: 'remember', metadata: bankSays(), until: now + settings.bankMemoryMs }],
      }),
    ],
    [
      'a bank that does not: straight to the transfer',
      {
        metadata: done(bankSays({ isCreateBeneficiaryEndpointRequired: false })),
        lease: 'lease-1',
        answered: false,
      },
      expect.objectContaining({ kind: 'move', send: { step: 'transfer' }, lease: 'lease-1' }),
    ],
    [
      'a question: asked, the lease kept for it',
      {
        metadata: {
          status: 'user_input_required',
          id: 'op-m',
          userInputs: [{ id: 'otp', index: 0, query: 'OTP?', answer: '' }],
          response: { success: true, status: 'user_input_required' },
        } as MetadataSaid['metadata'],
        lease: 'lease-1',
        answered: false,
      },
      expect.objectContaining({ kind: 'ask', step: 'resolve-bank', operation: 'metadata', lease: 'lease-1' }),
    ],
    [
      'answers refused as spent: asked again',
      { metadata: refusal('INVALID_OPERATION_ID'), lease: 'lease-1', answered: true },
      expect.objectContaining({ kind: 'ask-again', step: 'resolve-bank', before: [freed] }),
    ],
    [
      'a refusal: failed with it',
      { metadata: refusal('INVALID_CREDENTIALS', { status: 401 }), lease: 'lease-1', answered: false },
      expect.objectContaining({ kind: 'fail', type: 'INVALID_CREDENTIALS', before: [freed] }),
    ],
    [
      'done without metadata: a protocol error',
      { metadata: done(undefined), lease: 'lease-1', answered: false },
      expect.objectContaining({ kind: 'fail', type: 'PROVIDER_PROTOCOL_ERROR', before: [freed] }),
    ],
    [
      'an amount below the bank’s minimum: failed',
      {
        metadata: done(
          bankSays({
            transferBounds: [{ minimum: 1000, currency: { code: 'AED', name: 'UAE Dirham' }, type: 'local' }],
          }),
        ),
        lease: 'lease-1',
        answered: false,
      },
      expect.objectContaining({ kind: 'fail', type: 'AMOUNT_BELOW_MINIMUM' }),
    ],
  ])('%s', (_, said, decided) => {
    expect(afterMetadata(at, wallet, said, now, settings)).toEqual(decided);
  });

  it('takes a remembered bank as the bank’s own word, its bounds checked the same', () => {
    expect(withBank(at, wallet, bankSays() as never, 'bank remembered')).toMatchObject({
      kind: 'move',
      note: 'bank remembered: Sandbox Bank',
    });
  });
});

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
