/**
 * The caller's part through the fakes: the pause at a question. Its expiry, the answers and the
 * resume: `deposits-input-answers.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { pauseForInput } from '#shared/deposits/journey/input';
import { depositView } from '#shared/deposits/model/views';
import { inputLimits } from '#shared/provider/interface/limits';
import {
  answers,
  asked,
  banks,
  eventFields,
  ownerKey,
  question,
  settings,
  world,
} from '../support/deposit-world.ts';

describe('pauseForInput', () => {
  it("keeps the bank's question bounded: id, index and a query cut to its limit, never the answer field", async () => {
    // prepare: the bank sends an `answer` of its own and a query past the limit
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({ step: 'transfer', bank: banks.beneficiary });
    const sent = [
      { id: 'otp', index: 0, query: 'q'.repeat(inputLimits.query + 50), answer: 'whatever-the-bank-put' },
    ];

    // act
    await pauseForInput(
      ctx,
      deposit,
      'transfer',
      { ...answers.question('op-t'), userInputs: sent },
      { operation: 'transfer' },
    );

    // assess
    const after = w.table.current(deposit.id);
    expect(after.pendingInput?.userInputs).toEqual([
      { id: 'otp', index: 0, query: 'q'.repeat(inputLimits.query) },
    ]);
    expect(depositView(after, w.clock.now()).userInputs).toEqual([
      { id: 'otp', index: 0, query: 'q'.repeat(inputLimits.query), answer: '' },
    ]);
    expect(JSON.stringify([after, w.events.published])).not.toContain('whatever-the-bank-put');
  });

  it.for([
    [
      'more inputs than a caller may answer',
      Array.from({ length: inputLimits.userInputs + 1 }, (_, index) => ({
        id: `q${index}`,
        index,
        query: 'Q',
        answer: '',
      })),
    ],
    [
      'an id longer than a caller may send back',
      [{ id: 'i'.repeat(inputLimits.inputId + 1), index: 0, query: 'Q', answer: '' }],
    ],
  ] as const)(
    "fails PROVIDER_PROTOCOL_ERROR for a question past its bounds (%s), freeing the call's lease",
    async ([, sent]) => {
      const w = world();
      const ctx = w.contexts.transfer();
      const deposit = await w.deposit({ step: 'transfer', bank: banks.beneficiary });
      w.table.leaseItems.set(ownerKey, { holder: 'call-lease', until: w.clock.now() + settings.leaseMs });

      const next = await pauseForInput(
        ctx,
        deposit,
        'transfer',
        { ...answers.question('op-t'), userInputs: [...sent] },
        { operation: 'transfer', lease: 'call-lease' },
      );

      expect(next).toBeUndefined();
      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'failed',
        failure: { type: 'PROVIDER_PROTOCOL_ERROR' },
      });
      expect(w.table.current(deposit.id).pendingInput).toBeUndefined();
      expect(w.table.leaseItems.size).toBe(0);
    },
  );

  it('waits for the caller: the question, the lease passed on, the expiry to the asking step, the event', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({ step: 'transfer', bank: banks.beneficiary, sealedAnswers: 'old' });
    w.table.leaseItems.set(ownerKey, { holder: 'call-lease', until: w.clock.now() + settings.leaseMs });
    const expiresAt = w.clock.now() + settings.inputTtlMs;

    // act
    const next = await pauseForInput(ctx, deposit, 'transfer', answers.question('op-t'), {
      operation: 'transfer',
      lease: 'call-lease',
    });

    // assess
    const after = w.table.current(deposit.id);
    expect(next).toEqual(after);
    expect(after).toMatchObject({
      status: 'user_input_required',
      step: 'transfer',
      version: 1,
      pendingInput: { providerOperationId: 'op-t', userInputs: asked, expiresAt },
      checkAt: expiresAt + settings.stallAfterMs,
    });
    expect(after.sealedAnswers).toBeUndefined();
    expect(w.table.leaseItems.get(ownerKey)).toEqual({ holder: `${deposit.id}#own`, until: expiresAt });
    expect(ctx.queues.sent).toEqual([
      {
        message: { depositId: deposit.id, step: 'transfer', version: 1, kind: 'expire-input' },
        delaySeconds: settings.inputTtlMs / 1000,
      },
    ]);
    expect(w.events.published).toEqual([
      {
        id: `${deposit.id}.v1`,
        type: 'deposit.user_input_required',
        depositId: deposit.id,
        occurredAt: new Date(w.clock.now()).toISOString(),
        data: {
          ...eventFields(deposit, w.clock.now()),
          status: 'user_input_required',
          step: 'transfer',
          version: 1,
          userInputs: question,
          inputExpiresAt: new Date(expiresAt).toISOString(),
        },
      },
    ]);
  });

  it("gives the call's lease back, and does nothing more, when another worker moved the deposit first", async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({ step: 'transfer', bank: banks.beneficiary });
    w.table.put({ ...deposit, version: 1 });
    w.table.leaseItems.set(ownerKey, { holder: 'call-lease', until: w.clock.now() + settings.leaseMs });

    const next = await pauseForInput(ctx, deposit, 'transfer', answers.question(), {
      operation: 'transfer',
      lease: 'call-lease',
    });

    expect(next).toBeUndefined();
    expect(w.table.current(deposit.id)).toMatchObject({ version: 1, status: 'initialized' });
    expect(w.table.leaseItems.size).toBe(0);
    expect(ctx.queues.sent).toEqual([]);
    expect(w.events.published).toEqual([]);
  });
});
