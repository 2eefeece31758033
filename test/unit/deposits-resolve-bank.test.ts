/** The resolve-bank step through the fakes of its ports: metadata, bounds, the path it picks. */
import { describe, expect, it } from 'vitest';
import { resolveBank } from '#shared/deposits/steps/resolve-bank';
import { bankKeyOf } from '../support/deposit-fakes.ts';
import { answers, credentials, metadata, settings, world } from '../support/deposit-world.ts';

describe('resolve-bank', () => {
  it('records the bank and moves to ensure-beneficiary when the bank wants beneficiaries created', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.resolveBank();
    const deposit = await w.deposit();
    w.provider.answer('getMetadata', metadata({ beneficiaryCoolDownPeriod: { value: 2, unit: 'hrs' } }));

    // act
    await resolveBank(deposit, ctx);

    // assess
    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({
      step: 'ensure-beneficiary',
      status: 'initialized',
      version: 1,
      stepCounters: { retries: 0 },
    });
    expect(after.bank).toEqual({
      swiftCode: 'SBXBAEAD',
      bankName: 'Sandbox Bank',
      isCreateBeneficiaryEndpointRequired: true,
      hidesNewBeneficiaries: false,
      coolDownMs: 7_200_000,
    });
    expect(ctx.queues.sent).toEqual([
      {
        message: { depositId: deposit.id, step: 'ensure-beneficiary', version: 1, kind: 'run' },
        delaySeconds: 0,
      },
    ]);
    expect(w.provider.callsOf('getMetadata')).toEqual([[credentials, undefined]]);
    // The call's lease, handed to ensure-beneficiary with the move.
    expect([...w.table.leaseItems.values()].map((held) => held.holder)).toEqual([
      w.table.current(deposit.id).leaseHeld,
    ]);
    expect(w.observer.transitions).toEqual(['initialized/ensure-beneficiary']);
  });

  it('goes straight to the transfer at a bank that creates no beneficiaries', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    const deposit = await w.deposit();
    w.provider.answer('getMetadata', metadata({ isCreateBeneficiaryEndpointRequired: false }));

    await resolveBank(deposit, ctx);

    expect(w.table.current(deposit.id).step).toBe('transfer');
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['transfer']);
  });

  it.for([
    {
      label: 'below the minimum',
      amountMinor: 999,
      bounds: [{ minimum: 10, currency: { code: 'AED', name: 'Dirham' }, type: 'local' }],
      type: 'AMOUNT_BELOW_MINIMUM',
    },
    {
      label: 'a currency the bank does not transfer',
      amountMinor: 5000,
      bounds: [{ minimum: 1, currency: { code: 'KWD', name: 'Dinar' }, type: 'local' }],
      type: 'CURRENCY_NOT_SUPPORTED',
    },
  ])(
    'fails $label with $type, tells the caller, and erases the credentials',
    async ({ amountMinor, bounds, type }) => {
      const w = world();
      const ctx = w.contexts.resolveBank();
      const deposit = await w.deposit({ amountMinor });
      w.provider.answer('getMetadata', metadata({ transferBounds: bounds }));

      await resolveBank(deposit, ctx);

      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({ status: 'failed', step: 'completed', failure: { type } });
      expect(after.sealedCredentials).toBeUndefined();
      expect(after.checkAt).toBeUndefined();
      expect(ctx.queues.sent).toEqual([]);
      expect(w.events.published).toEqual([
        expect.objectContaining({ id: `${deposit.id}.v1`, type: 'deposit.failed', depositId: deposit.id }),
      ]);
    },
  );

  it('accepts the minimum itself, and bounds of the same bank by its swift code', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    const deposit = await w.deposit({ amountMinor: 1000 });
    w.provider.answer(
      'getMetadata',
      metadata({
        swiftCode: 'WALTAEADXXX',
        transferBounds: [
          { minimum: 10, currency: { code: 'AED', name: 'Dirham' }, type: 'same' },
          { minimum: 500, currency: { code: 'AED', name: 'Dirham' }, type: 'local' },
        ],
      }),
    );

    await resolveBank(deposit, ctx);

    expect(w.table.current(deposit.id).step).toBe('ensure-beneficiary');
  });

  it('fails a refusal with its type, and an answer without metadata as a protocol error', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    const refused = await w.deposit();
    const empty = await w.deposit();
    w.provider.answer('getMetadata', answers.refusal('INVALID_CREDENTIALS'), answers.done({ jobID: 'j' }));

    await resolveBank(refused, ctx);
    await resolveBank(empty, ctx);

    expect(w.table.current(refused.id).failure?.type).toBe('INVALID_CREDENTIALS');
    expect(w.table.current(empty.id).failure?.type).toBe('PROVIDER_PROTOCOL_ERROR');
  });

  it('retries an unknown outcome later, counted, and fails PROVIDER_UNAVAILABLE past the limit', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    let deposit = await w.deposit();
    w.provider.answer(
      'getMetadata',
      ...Array.from({ length: settings.maxRetries + 1 }, () => answers.unknown('server_error')),
    );

    for (let attempt = 0; attempt <= settings.maxRetries; attempt += 1) {
      await resolveBank(deposit, ctx);
      deposit = w.table.current(deposit.id);
    }

    expect(deposit).toMatchObject({ status: 'failed', failure: { type: 'PROVIDER_UNAVAILABLE' } });
    expect(ctx.queues.sent.map((sent) => [sent.message.step, sent.delaySeconds])).toEqual([
      ['resolve-bank', 3],
      ['resolve-bank', 5],
      ['resolve-bank', 7],
    ]);
    expect(w.table.leaseItems.size).toBe(0);
  });

  it('waits for a connection another step holds past its patience: once, recorded, through its own queue', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    const deposit = await w.deposit();
    w.table.leaseItems.set(deposit.ownerKey, { holder: 'someone-else', until: w.clock.now() + 60_000 });
    const startedAt = w.clock.now();

    await resolveBank(deposit, ctx);

    expect(w.provider.calls).toEqual([]);
    expect(w.clock.now() - startedAt).toBeLessThanOrEqual(settings.leasePatienceMs + 400);
    expect(ctx.queues.sent.map((sent) => sent.message)).toEqual([
      { depositId: deposit.id, step: 'resolve-bank', version: 1, kind: 'run' },
    ]);
    expect(w.table.current(deposit.id)).toMatchObject({ version: 1, stepCounters: { busyWaits: 1 } });
  });

  it('does nothing more when another worker moved the deposit first (a duplicate)', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    const deposit = await w.deposit();
    w.table.put({ ...deposit, version: 1, step: 'ensure-beneficiary' });
    w.provider.answer('getMetadata', metadata());

    await resolveBank(deposit, ctx);

    expect(w.table.current(deposit.id)).toMatchObject({ version: 1, step: 'ensure-beneficiary' });
    expect(ctx.queues.sent).toEqual([]);
  });
});

/**
 * The bank's metadata, remembered per connection for `bankMemoryMs`: a repeat deposit asks the bank
 * nothing before its transfer: one provider call for a repeat deposit.
 */
describe("resolve-bank with the connection's bank remembered", () => {
  it('asks the bank once: the next deposit of the connection goes on from what it said', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    const first = await w.deposit();
    const second = await w.deposit({ amountMinor: 1_500 });
    w.provider.answer('getMetadata', metadata());

    await resolveBank(first, ctx);
    // Its next step, not run here, would take the lease handed to it, and give it back.
    w.table.leaseItems.clear();
    w.clock.advance(settings.bankMemoryMs - 1);
    await resolveBank(second, ctx);

    expect(w.provider.callsOf('getMetadata')).toHaveLength(1);
    const after = w.table.current(second.id);
    expect(after).toMatchObject({
      step: 'ensure-beneficiary',
      bank: w.table.current(first.id).bank,
    });
    expect(after.history.at(-1)?.note).toBe('bank remembered: Sandbox Bank');
    // No lease was taken for it: nothing was asked.
    expect(w.table.leaseItems.size).toBe(0);
  });

  it('checks the amount against the remembered bounds: below the minimum, the bank is asked, and decides', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    w.provider.answer('getMetadata', metadata(), metadata());
    await resolveBank(await w.deposit(), ctx);
    // Its next step, not run here, would take the lease handed to it, and give it back.
    w.table.leaseItems.clear();
    const small = await w.deposit({ amountMinor: 999 });

    await resolveBank(small, ctx);

    expect(w.provider.callsOf('getMetadata')).toHaveLength(2);
    expect(w.table.current(small.id)).toMatchObject({
      status: 'failed',
      failure: { type: 'AMOUNT_BELOW_MINIMUM' },
    });
  });

  it('asks again once the memory has run out, and another connection always asks', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    w.provider.answer('getMetadata', metadata(), metadata(), metadata());
    await resolveBank(await w.deposit(), ctx);

    w.clock.advance(settings.bankMemoryMs);
    await resolveBank(await w.deposit(), ctx);
    await resolveBank(await w.deposit({ ownerKey: 'another-connection' }), ctx);

    expect(w.provider.callsOf('getMetadata')).toHaveLength(3);
  });

  it('remembers nothing with a memory of 0', async () => {
    const w = world();
    const ctx = { ...w.contexts.resolveBank(), settings: { ...settings, bankMemoryMs: 0 } };
    w.provider.answer('getMetadata', metadata(), metadata());

    await resolveBank(await w.deposit(), ctx);
    // Its next step, not run here, would take the lease handed to it, and give it back.
    w.table.leaseItems.clear();
    await resolveBank(await w.deposit(), ctx);

    expect(w.provider.callsOf('getMetadata')).toHaveLength(2);
    expect(w.table.bankItems.size).toBe(0);
  });

  it("sends the caller's answers to the bank even when the metadata is remembered", async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    w.table.bankItems.set(bankKeyOf(w.table.current((await w.deposit()).id)), {
      metadata: metadata().response.accountsMetadata,
      until: w.clock.now() + 60_000,
    });
    const answered = [{ id: 'otp', index: 0, query: 'OTP', answer: '123456' }];
    const waiting = await w.deposit({
      pendingInput: {
        providerOperationId: 'op-meta',
        operation: 'metadata',
        userInputs: answered,
        expiresAt: w.clock.now() + 60_000,
      },
    });
    const answering = w.table.put({
      ...waiting,
      sealedAnswers: await w.vault.seal('answers', waiting.id, answered),
    });
    w.provider.answer('getMetadata', metadata());

    await resolveBank(answering, ctx);

    expect(w.provider.callsOf('getMetadata')).toEqual([
      [credentials, { id: 'op-meta', userInputs: answered }],
    ]);
  });
});

describe('resolve-bank at a busy connection', () => {
  it('comes back after a growing wait, counted apart from the retries of failed calls', async () => {
    const w = world();
    const ctx = w.contexts.resolveBank();
    let deposit = await w.deposit({ stepCounters: { retries: 2 } });
    w.provider.answer(
      'getMetadata',
      answers.refusal('OPERATION_IN_PROGRESS'),
      answers.refusal('OPERATION_IN_PROGRESS'),
    );

    await resolveBank(deposit, ctx);
    deposit = w.table.current(deposit.id);
    await resolveBank(deposit, ctx);
    deposit = w.table.current(deposit.id);

    expect(deposit).toMatchObject({
      status: 'initialized',
      step: 'resolve-bank',
      stepCounters: { retries: 2, busyWaits: 2 },
    });
    expect(ctx.queues.sent.map((sent) => [sent.message.step, sent.delaySeconds])).toEqual([
      ['resolve-bank', 1],
      ['resolve-bank', 3],
    ]);
    expect(w.table.leaseItems.size).toBe(0);
  });
});
