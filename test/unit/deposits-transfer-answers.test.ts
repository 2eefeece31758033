/** The transfer step through the fakes of its ports: done, and the bank's questions. */
import { describe, expect, it } from 'vitest';
import { transfer } from '#shared/deposits/steps/transfer';
import {
  answers,
  asked,
  banks,
  credentials,
  eventFields,
  ownerKey,
  question,
  settings,
  world,
} from '../support/deposit-world.ts';
import { atTransfer, claimFor, inline, order, storedAtEachCall } from '../support/transfer-step.ts';

describe('transfer: done', () => {
  it.for([
    { label: 'with the beneficiary details (first transfer)', sendDetails: true },
    { label: 'without details', sendDetails: false },
  ])(
    'by beneficiary id $label: records the attempt before the one call, then done',
    async ({ sendDetails }) => {
      // prepare
      const w = world();
      const ctx = w.contexts.transfer();
      const deposit = await atTransfer(w, { version: 4, beneficiaryWork: { sendDetails } });
      w.table.claimItems.set(`${ownerKey}#wallet-aed`, claimFor('dep_creator'));
      w.provider.answer('createTransfer', answers.done({ reference: 'REF-123' }));
      const stored = storedAtEachCall(w, ctx, deposit.id);

      // act
      await transfer(deposit, ctx);

      // assess: the attempt is on record when the provider is called, and only then
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({
        version: 5,
        transfer: { attempt: { at: w.clock.now(), answering: false } },
      });
      expect(w.table.writes.map((write) => [write.version, write.status, write.transfer?.attempt])).toEqual([
        [5, 'initialized', { at: w.clock.now(), answering: false }],
        [6, 'done', undefined],
      ]);
      expect(w.provider.callsOf('createTransfer')).toEqual([
        [
          credentials,
          {
            ...order,
            receiverID: 'ben-1',
            ...(sendDetails ? { beneficiary: inline(w) } : {}),
          },
          undefined,
          { sync: false },
        ],
      ]);
      if (!sendDetails) {
        expect(w.provider.callsOf('createTransfer')[0]?.[1]).not.toHaveProperty('beneficiary');
      }
      expect(w.provider.callsOf('createAutoflowTransfer')).toEqual([]);
      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({ status: 'done', step: 'completed', version: 6, reference: 'REF-123' });
      expect(after.transfer?.attempt).toBeUndefined();
      expect(after.sealedCredentials).toBeUndefined();
      expect(after.checkAt).toBeUndefined();
      expect(w.events.published).toEqual([
        {
          id: `${deposit.id}.v6`,
          type: 'deposit.done',
          depositId: deposit.id,
          occurredAt: new Date(w.clock.now()).toISOString(),
          data: {
            ...eventFields(deposit, w.clock.now()),
            status: 'done',
            step: 'completed',
            version: 6,
            reference: 'REF-123',
          },
        },
      ]);
      expect(w.table.claimItems.get(`${ownerKey}#wallet-aed`)?.used).toBe(true);
      expect(w.table.leaseItems.size).toBe(0);
      expect(ctx.queues.sent).toEqual([]);
      expect(ctx.scheduler.schedules.size).toBe(0);
      expect(w.observer.transitions).toEqual(['done/completed']);
    },
  );

  it('at a bank that creates no beneficiary: the autoflow transfer with the receiver inline, no claim marked', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({ step: 'transfer', version: 1, bank: banks.noBeneficiary });
    w.table.claimItems.set(`${ownerKey}#wallet-aed`, claimFor('dep_creator'));
    w.provider.answer('createAutoflowTransfer', answers.done({ reference: 'REF-AUTO' }));
    const stored = storedAtEachCall(w, ctx, deposit.id);

    await transfer(deposit, ctx);

    expect(stored.map((at) => at.transfer?.attempt)).toEqual([{ at: w.clock.now(), answering: false }]);
    expect(w.provider.callsOf('createAutoflowTransfer')).toEqual([
      [credentials, { ...order, beneficiary: inline(w) }, undefined],
    ]);
    expect(w.provider.callsOf('createTransfer')).toEqual([]);
    expect(w.table.current(deposit.id)).toMatchObject({ status: 'done', reference: 'REF-AUTO' });
    expect(w.table.claimItems.get(`${ownerKey}#wallet-aed`)?.used).toBeUndefined();
    expect(w.events.types()).toEqual(['deposit.done']);
    expect(w.table.leaseItems.size).toBe(0);
  });
});

describe('transfer: the bank asks', () => {
  it('waits for input, keeps the connection under the input lease, arms the expiry and tells the caller', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    w.provider.answer('createTransfer', answers.question('op-q'));
    const expiresAt = w.clock.now() + settings.inputTtlMs;

    await transfer(deposit, ctx);

    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({
      status: 'user_input_required',
      step: 'transfer',
      version: 4,
      pendingInput: { providerOperationId: 'op-q', userInputs: asked, expiresAt },
    });
    expect(after.transfer?.attempt).toBeUndefined();
    expect(after.sealedCredentials).toBeDefined();
    expect(w.table.leaseItems.get(ownerKey)).toEqual({ holder: `${deposit.id}#own`, until: expiresAt });
    expect(ctx.queues.sent).toEqual([
      {
        message: { depositId: deposit.id, step: 'transfer', version: 4, kind: 'expire-input' },
        delaySeconds: settings.inputTtlMs / 1000,
      },
    ]);
    expect(ctx.scheduler.schedules.size).toBe(0);
    expect(w.events.published).toEqual([
      {
        id: `${deposit.id}.v4`,
        type: 'deposit.user_input_required',
        depositId: deposit.id,
        occurredAt: new Date(w.clock.now()).toISOString(),
        data: {
          ...eventFields(deposit, w.clock.now()),
          status: 'user_input_required',
          step: 'transfer',
          version: 4,
          userInputs: question,
          inputExpiresAt: new Date(expiresAt).toISOString(),
        },
      },
    ]);
  });

  it('arms the expiry as a schedule on the transfer queue when the input wait is long', async () => {
    const w = world();
    const ctx = {
      ...w.contexts.transfer(),
      settings: { ...settings, inputTtlMs: settings.longWaitMs + 1_000 },
    };
    const deposit = await atTransfer(w);
    w.provider.answer('createTransfer', answers.question('op-q'));
    const expiresAt = w.clock.now() + settings.longWaitMs + 1_000;

    await transfer(deposit, ctx);

    expect(ctx.queues.sent).toEqual([]);
    expect([...ctx.scheduler.schedules]).toEqual([
      [
        `${deposit.id}-input-4`,
        {
          at: expiresAt,
          message: { depositId: deposit.id, step: 'transfer', version: 4, kind: 'expire-input' },
        },
      ],
    ]);
  });

  it('answers the pending question: the answers go with the call, and the attempt says so', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const id = 'dep_answering';
    const expiresAt = w.clock.now() + 100_000;
    const sealedAnswers = await w.vault.seal('answers', id, [
      { id: 'otp', index: 0, query: 'One-time password', answer: '123456' },
    ]);
    const deposit = await atTransfer(w, {
      id,
      pendingInput: { providerOperationId: 'op-q', userInputs: asked, expiresAt },
      sealedAnswers,
    });
    // The connection waits for this deposit's answer under its input lease.
    w.table.leaseItems.set(ownerKey, { holder: `${id}#own`, until: expiresAt });
    w.provider.answer('createTransfer', answers.done({ reference: 'REF-OTP' }));

    await transfer(deposit, ctx);

    expect(w.provider.callsOf('createTransfer')).toEqual([
      [
        credentials,
        { ...order, receiverID: 'ben-1' },
        { id: 'op-q', userInputs: [{ ...question[0], answer: '123456' }] },
        { sync: false },
      ],
    ]);
    expect(w.table.writes[0]?.transfer?.attempt).toEqual({ at: w.clock.now(), answering: true });
    const after = w.table.current(id);
    expect(after).toMatchObject({ status: 'done', reference: 'REF-OTP' });
    expect(after.sealedAnswers).toBeUndefined();
    expect(w.table.leaseItems.size).toBe(0);
  });
});
