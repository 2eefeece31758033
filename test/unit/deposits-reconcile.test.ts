/**
 * The transfer's outcome read back (`reconcile`) through the fakes of its ports: the submission's id
 * recorded with its answer, reads until the bank says how it ended, each answer's consequence, and
 * the bound past which the outcome stays unknown for an operator.
 *
 * The submission's id recorded with its answer: `deposits-reconcile-submission.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { reconcile } from '#shared/deposits/steps/reconcile';
import { pollDelaySeconds } from '#shared/deposits/steps/transfer-outcomes';
import { ProviderRefusal } from '#shared/provider/client';
import {
  answers,
  asked,
  credentials,
  initialized,
  ownerKey,
  settings,
  world,
} from '../support/deposit-world.ts';
import { atReconcile } from '../support/reconcile-step.ts';

describe('reconcile', () => {
  it('done: the deposit is done with the reference, its caller hears, the beneficiary is marked used', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.reconcile();
    const deposit = await atReconcile(w);
    w.table.claimItems.set(`${ownerKey}#wallet-aed`, {
      ownerKey,
      walletAccountId: 'wallet-aed',
      state: 'created',
      depositId: 'dep_other',
      claimedAt: 0,
      beneficiaryId: 'ben-1',
    });
    w.table.leaseItems.set(ownerKey, { holder: `${deposit.id}#own`, until: w.clock.now() + 10_000 });
    w.provider.answer('getOperation', answers.done({ reference: 'REF-9' }, 'op-7'));

    // act
    await reconcile(deposit, ctx);

    // assess
    expect(w.provider.callsOf('getOperation')).toEqual([[credentials, { operationID: 'op-7' }]]);
    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({ status: 'done', step: 'completed', reference: 'REF-9' });
    expect(after.transfer?.attempt).toBeUndefined();
    expect(after.transfer?.operationId).toBeUndefined();
    expect(after.sealedCredentials).toBeUndefined();
    expect(after.checkAt).toBeUndefined();
    expect(w.events.types()).toEqual(['deposit.done']);
    expect(w.table.claimItems.get(`${ownerKey}#wallet-aed`)?.used).toBe(true);
    expect(ctx.queues.sent).toEqual([]);
    expect(w.table.leaseItems.get(ownerKey)).toBeUndefined();
  });

  it.for([
    { label: 'still running', answer: initialized('op-7'), note: 'still running' },
    { label: 'the read unanswered', answer: answers.unknown('timeout'), note: 'the read failed (timeout)' },
    {
      label: 'a server error',
      answer: answers.unknown('server_error'),
      note: 'the read failed (server_error)',
    },
    {
      label: 'the read refused',
      answer: answers.refusal('INVALID_OPERATION_ID'),
      note: 'the read was refused (INVALID_OPERATION_ID)',
    },
  ])(
    '$label: reads again after a delay that doubles, the attempt kept on record',
    async ({ answer, note }) => {
      // prepare
      const w = world();
      const ctx = w.contexts.reconcile();
      const deposit = await atReconcile(w, { transfer: { polls: 3 } });
      const held = { holder: `${deposit.id}#own`, until: w.clock.now() + 10_000 };
      w.table.leaseItems.set(ownerKey, held);
      w.provider.answer('getOperation', answer);

      // act
      await reconcile(deposit, ctx);

      // assess: the bank may still be carrying the transfer out; the lease runs its time
      expect(w.table.leaseItems.get(ownerKey)).toEqual(held);

      // assess
      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({
        status: 'initialized',
        step: 'reconcile',
        transfer: { polls: 4 },
        version: 7,
      });
      expect(after.transfer?.pollAt).toBe(w.clock.now() + 16_000);
      expect(after.checkAt).toBe(w.clock.now() + 16_000 + settings.stallAfterMs);
      expect(after.transfer?.attempt).toBeDefined();
      expect(after.history.at(-1)?.note).toBe(`transfer outcome, read 4: ${note}`);
      expect(ctx.queues.sent).toEqual([
        { message: { depositId: deposit.id, step: 'reconcile', version: 7, kind: 'run' }, delaySeconds: 16 },
      ]);
      expect(w.events.types()).toEqual([]);
    },
  );

  it(`never told: after ${settings.maxPolls} reads the outcome stays unknown, with the operation's id, for an operator`, async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.reconcile();
    let deposit = await atReconcile(w);
    w.provider.answer(
      'getOperation',
      ...Array.from({ length: settings.maxPolls }, () => answers.unknown('network')),
    );

    // act: each read as its message arrives
    for (let read = 0; read < settings.maxPolls; read += 1) {
      await reconcile(deposit, ctx);
      deposit = w.table.current(deposit.id);
      if (deposit.step === 'completed') break;
      w.clock.advance((deposit.transfer?.pollAt ?? 0) - w.clock.now());
    }

    // assess
    expect(w.provider.callsOf('getOperation')).toHaveLength(settings.maxPolls);
    expect(deposit).toMatchObject({
      status: 'failed',
      failure: { type: 'TRANSFER_OUTCOME_UNKNOWN', msg: expect.stringContaining('op-7') },
      transfer: { operationId: 'op-7' },
    });
    expect(deposit.transfer?.attempt).toBeDefined();
    expect(w.events.types()).toEqual(['deposit.failed']);
    const delays = ctx.queues.sent.map((sent) => sent.delaySeconds);
    expect(delays).toHaveLength(settings.maxPolls - 1);
    expect(Math.max(...delays)).toBe(900);
    expect(pollDelaySeconds(40)).toBe(900);
  });

  it.for([
    { type: 'TOKEN_EXPIRED', status: 401 },
    { type: 'FORBIDDEN', status: 403 },
    { type: 'OPERATION_MISMATCH', status: 409 },
    { type: 'INVALID_ACCESS_CODE', status: 400 },
    { type: 'SOMETHING_NEW', status: 422 },
    { type: 'INSUFFICIENT_BALANCE', status: 429 },
  ])(
    'a refusal of the read naming the operation ($type, $status), not one that refuses a transfer: read again, the attempt kept',
    async ({ type, status }) => {
      // prepare: a provider that echoes the operation's id in every failed envelope
      const w = world();
      const ctx = w.contexts.reconcile();
      const deposit = await atReconcile(w, { transfer: { polls: 3 } });
      const held = { holder: `${deposit.id}#own`, until: w.clock.now() + 10_000 };
      w.table.leaseItems.set(ownerKey, held);
      w.provider.answer('getOperation', new ProviderRefusal(type, type, status, 'op-7'));

      // act
      await reconcile(deposit, ctx);

      // assess: nothing says the transfer was refused; it may have moved the money
      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({ status: 'initialized', step: 'reconcile', transfer: { polls: 4 } });
      expect(after.transfer?.attempt).toBeDefined();
      expect(after.transfer?.operationId).toBe('op-7');
      expect(after.history.at(-1)?.note).toBe(`transfer outcome, read 4: the read was refused (${type})`);
      expect(w.table.leaseItems.get(ownerKey)).toEqual(held);
      expect(w.events.types()).toEqual([]);
    },
  );

  it.for(['INSUFFICIENT_BALANCE', 'AMOUNT_BELOW_MINIMUM', 'BENEFICIARY_DETAILS_MISMATCH', 'INVALID_MFA'])(
    'the operation refused as a transfer is (%s): nothing moved, the attempt closed',
    async (type) => {
      const w = world();
      const ctx = w.contexts.reconcile();
      const deposit = await atReconcile(w);
      w.provider.answer('getOperation', new ProviderRefusal(type, type, 422, 'op-7'));

      await reconcile(deposit, ctx);

      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({ status: 'failed', failure: { type } });
      expect(after.transfer?.attempt).toBeUndefined();
    },
  );

  it('refused by the bank (insufficient balance): nothing moved, the deposit fails with its type', async () => {
    const w = world();
    const ctx = w.contexts.reconcile();
    const deposit = await atReconcile(w);
    w.table.leaseItems.set(ownerKey, { holder: `${deposit.id}#own`, until: w.clock.now() + 10_000 });
    w.provider.answer(
      'getOperation',
      answers.refusal('INSUFFICIENT_BALANCE', 'INSUFFICIENT_BALANCE', 'op-7'),
    );

    await reconcile(deposit, ctx);

    expect(w.table.leaseItems.get(ownerKey)).toBeUndefined();

    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({ status: 'failed', failure: { type: 'INSUFFICIENT_BALANCE' } });
    expect(after.transfer?.attempt).toBeUndefined();
    expect(after.transfer?.operationId).toBeUndefined();
    expect(w.events.types()).toEqual(['deposit.failed']);
  });

  it('refused for want of the beneficiary details: the transfer again, with them', async () => {
    const w = world();
    const ctx = w.contexts.reconcile();
    const deposit = await atReconcile(w);
    w.table.leaseItems.set(ownerKey, { holder: `${deposit.id}#own`, until: w.clock.now() + 10_000 });
    w.provider.answer(
      'getOperation',
      answers.refusal('BENEFICIARY_DETAILS_REQUIRED', 'BENEFICIARY_DETAILS_REQUIRED', 'op-7'),
    );

    await reconcile(deposit, ctx);

    // The bank ended the operation: the connection is free for the transfer's next try.
    expect(w.table.leaseItems.get(ownerKey)).toBeUndefined();

    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({
      status: 'initialized',
      step: 'transfer',
      beneficiaryWork: { sendDetails: true },
    });
    expect(after.transfer?.attempt).toBeUndefined();
    expect(after.transfer?.operationId).toBeUndefined();
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['transfer']);
  });

  it('the bank asks a question: the deposit waits for input at the transfer, which will answer it', async () => {
    const w = world();
    const ctx = w.contexts.reconcile();
    const deposit = await atReconcile(w);
    w.provider.answer('getOperation', answers.question('op-7'));
    const expiresAt = w.clock.now() + settings.inputTtlMs;

    await reconcile(deposit, ctx);

    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({
      status: 'user_input_required',
      step: 'transfer',
      pendingInput: { providerOperationId: 'op-7', operation: 'transfer', userInputs: asked, expiresAt },
    });
    expect(after.transfer?.attempt).toBeUndefined();
    expect(after.transfer?.operationId).toBeUndefined();
    expect(w.events.types()).toEqual(['deposit.user_input_required']);
    expect(w.table.leaseItems.get(ownerKey)?.holder).toBe(`${deposit.id}#own`);
    expect(ctx.queues.sent).toEqual([
      {
        message: { depositId: deposit.id, step: 'transfer', version: 7, kind: 'expire-input' },
        delaySeconds: settings.inputTtlMs / 1000,
      },
    ]);
  });
});
