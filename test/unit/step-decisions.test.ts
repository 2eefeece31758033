/**
 * The steps' decisions, from tables, as a `Next` (`shared/deposits/journey/next.ts`) with no port
 * at all: here the transfer's, before its call, after its submission, after a refusal; reconcile's
 * and resolve-bank's in `step-decisions-reads.test.ts`, ensure-beneficiary's and the cool-down's in
 * `step-decisions-beneficiary.test.ts`. What `apply` then writes, sends and frees is
 * next-apply.test.ts; the steps through their fakes, end to end in process, are the
 * deposits-*.test.ts files.
 */
import { describe, expect, it } from 'vitest';
import type { Deposit } from '#shared/deposits/model/deposit';
import { afterSubmission, beforeTheCall, type Call, type Submission } from '#shared/deposits/steps/transfer';
import { transferDone, transferRefused } from '#shared/deposits/steps/transfer-outcomes';
import { type ProviderRefusal, ProviderUnknownOutcome } from '#shared/provider/client';
import { banks, settings } from '../support/deposit-world.ts';
import { call, cleared, deposit, now, refusal } from '../support/step-decisions.ts';

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
