/**
 * The steps' decisions, from tables, as a `Next` with no port at all: reconcile's after a read of
 * the operation, resolve-bank's after the bank's metadata.
 */
import { describe, expect, it } from 'vitest';
import { localWallets } from '#infra/local/wallets';
import type { Deposit } from '#shared/deposits/model/deposit';
import { walletAccounts } from '#shared/deposits/model/wallets';
import { afterRead } from '#shared/deposits/steps/reconcile';
import { afterMetadata, type MetadataSaid, withBank } from '#shared/deposits/steps/resolve-bank';
import { ProviderUnknownOutcome } from '#shared/provider/client';
import { settings } from '../support/deposit-world.ts';
import { metadata } from '../support/fake-provider.ts';
import { clock, deposit, now, refusal } from '../support/step-decisions.ts';

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
