/** The transfer step through the fakes of its ports: at most one call, and what follows each answer. */
import { describe, expect, it } from 'vitest';
import { MAX_BUSY_WAITS, SHORT_LEASE_WAITS } from '#shared/deposits/journey/later';
import type { Deposit } from '#shared/deposits/model/deposit';
import { transfer } from '#shared/deposits/steps/transfer';
import type { UnknownReason } from '#shared/provider/client';
import { bankKeyOf } from '../support/deposit-fakes.ts';
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

type World = ReturnType<typeof world>;
type Context = ReturnType<World['contexts']['transfer']>;

/** A deposit as ensure-beneficiary leaves it: at transfer, with the beneficiary's id. */
function atTransfer(w: World, overrides: Partial<Deposit> = {}) {
  return w.deposit({
    step: 'transfer',
    version: 2,
    bank: banks.beneficiary,
    beneficiaryId: 'ben-1',
    ...overrides,
  });
}

function inline(w: World) {
  const wallet = w.wallets.find('wallet-aed');
  if (!wallet) throw new Error('no wallet-aed');
  return wallet.inline;
}

const order = { amountMinor: 2550, currency: 'AED', senderID: 'acc-1' };

/** The deposit as stored at the moment of each provider call (the fake provider's port, passed through). */
function storedAtEachCall(w: World, ctx: Context, depositId: string): Deposit[] {
  const seen: Deposit[] = [];
  const port = ctx.provider;
  ctx.provider = {
    createTransfer: (...args) => {
      seen.push(w.table.current(depositId));
      return port.createTransfer(...args);
    },
    createAutoflowTransfer: (...args) => {
      seen.push(w.table.current(depositId));
      return port.createAutoflowTransfer(...args);
    },
  };
  return seen;
}

function claimFor(depositId: string) {
  return {
    ownerKey,
    walletAccountId: 'wallet-aed',
    state: 'created' as const,
    depositId,
    claimedAt: 0,
    beneficiaryId: 'ben-1',
  };
}

describe('transfer: the cool-down', () => {
  it.for([
    { label: 'a short wait', waitMs: 90_000 },
    { label: 'a wait of exactly longWaitMs', waitMs: settings.longWaitMs },
  ])('woken early with $label: writes nothing and re-arms a delayed transfer message', async ({ waitMs }) => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({
      step: 'wait-cooldown',
      version: 3,
      bank: banks.coolDown,
      beneficiaryId: 'ben-1',
      cooldownUntil: w.clock.now() + waitMs,
    });

    // act
    await transfer(deposit, ctx);

    // assess
    expect(w.table.writes).toEqual([]);
    expect(w.provider.calls).toEqual([]);
    expect(ctx.queues.sent).toEqual([
      {
        message: { depositId: deposit.id, step: 'transfer', version: 3, kind: 'run' },
        delaySeconds: Math.ceil(waitMs / 1000),
      },
    ]);
    expect(ctx.scheduler.schedules.size).toBe(0);
    expect(w.events.published).toEqual([]);
  });

  it('woken early before a long wait: writes nothing and arms a schedule on the transfer queue', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const until = w.clock.now() + settings.longWaitMs + 60_500;
    const deposit = await w.deposit({
      step: 'wait-cooldown',
      version: 3,
      bank: banks.hiddenCoolDown,
      beneficiaryId: 'ben-1',
      cooldownUntil: until,
    });

    await transfer(deposit, ctx);

    expect(w.table.writes).toEqual([]);
    expect(w.provider.calls).toEqual([]);
    expect(ctx.queues.sent).toEqual([]);
    expect([...ctx.scheduler.schedules]).toEqual([
      [
        `${deposit.id}-transfer-${Math.floor(until / 1000)}`,
        { at: until, message: { depositId: deposit.id, step: 'transfer', version: 3, kind: 'run' } },
      ],
    ]);
  });

  it('woken at the end of the cool-down: moves to transfer (cool-down over) and transfers', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({
      step: 'wait-cooldown',
      version: 5,
      bank: banks.coolDown,
      beneficiaryId: 'ben-1',
      cooldownUntil: w.clock.now(),
    });
    w.provider.answer('createTransfer', answers.done({ reference: 'REF-CD' }));

    await transfer(deposit, ctx);

    expect(w.table.writes.map((write) => [write.version, write.step, write.status])).toEqual([
      [6, 'transfer', 'initialized'],
      [7, 'transfer', 'initialized'],
      [8, 'completed', 'done'],
    ]);
    expect(w.table.writes[0]?.transfer?.attempt).toBeUndefined();
    expect(w.table.writes[1]?.transfer?.attempt).toEqual({ at: w.clock.now(), answering: false });
    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({ status: 'done', reference: 'REF-CD' });
    expect(after.history.map((entry) => [entry.step, entry.note])).toEqual([
      ['wait-cooldown', undefined],
      ['transfer', 'cool-down over'],
      ['completed', undefined],
    ]);
    expect(w.provider.callsOf('createTransfer')).toHaveLength(1);
    expect(ctx.queues.sent).toEqual([]);
    expect(w.events.types()).toEqual(['deposit.done']);
  });
});

describe('transfer: at most once', () => {
  it('fails TRANSFER_OUTCOME_UNKNOWN without calling the provider when an attempt older than the stall time is recorded', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const at = w.clock.now() - settings.stallAfterMs;
    const deposit = await atTransfer(w, { transfer: { attempt: { at, answering: false } } });

    await transfer(deposit, ctx);

    expect(w.provider.calls).toEqual([]);
    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({
      status: 'failed',
      step: 'completed',
      version: 3,
      failure: { type: 'TRANSFER_OUTCOME_UNKNOWN' },
    });
    expect(after.sealedCredentials).toBeUndefined();
    expect(after.checkAt).toBeUndefined();
    expect(w.events.published).toEqual([
      expect.objectContaining({ id: `${deposit.id}.v3`, type: 'deposit.failed', depositId: deposit.id }),
    ]);
    expect(ctx.queues.sent).toEqual([]);
  });

  it('a copy of the message while the attempt may still be in flight: nothing called, written or sent; the sweeper looks later', async () => {
    // prepare: the first run recorded its attempt a moment ago and waits for the bank
    const w = world();
    const ctx = w.contexts.transfer();
    const at = w.clock.now() - 1_000;
    const deposit = await atTransfer(w, { transfer: { attempt: { at, answering: false } } });
    const stored = structuredClone(w.table.current(deposit.id));

    // act: SQS delivers the same message again
    await transfer(deposit, ctx);

    // assess: the first run's outcome can still land on the version it wrote
    expect(w.provider.calls).toEqual([]);
    expect(w.table.current(deposit.id)).toEqual(stored);
    expect(ctx.queues.sent).toEqual([]);
    expect(stored.checkAt).toBeGreaterThanOrEqual(at + settings.stallAfterMs);
  });

  it.for(['timeout', 'server_error', 'network'] as UnknownReason[])(
    'fails TRANSFER_OUTCOME_UNKNOWN after an unknown outcome (%s), never retried',
    async (reason) => {
      const w = world();
      const ctx = w.contexts.transfer();
      const deposit = await atTransfer(w);
      w.provider.answer('createTransfer', answers.unknown(reason), answers.done({ reference: 'NEVER' }));

      await transfer(deposit, ctx);

      expect(w.provider.callsOf('createTransfer')).toHaveLength(1);
      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({
        status: 'failed',
        step: 'completed',
        failure: { type: 'TRANSFER_OUTCOME_UNKNOWN' },
      });
      expect(after.failure?.msg).toContain(reason);
      // Money may have moved: the attempt stays on record for reconciliation.
      expect(after.transfer?.attempt).toEqual({ at: w.clock.now(), answering: false });
      expect(after.sealedCredentials).toBeUndefined();
      expect(ctx.queues.sent).toEqual([]);
      expect(ctx.scheduler.schedules.size).toBe(0);
      expect(w.events.types()).toEqual(['deposit.failed']);
      expect(w.table.leaseItems.size).toBe(0);
    },
  );

  it.for([{ label: 'done without a reference', answer: answers.done({}) }])(
    'fails TRANSFER_OUTCOME_UNKNOWN on an answer $label',
    async ({ answer }) => {
      const w = world();
      const ctx = w.contexts.transfer();
      const deposit = await atTransfer(w);
      w.provider.answer('createTransfer', answer);

      await transfer(deposit, ctx);

      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({
        status: 'failed',
        step: 'completed',
        failure: { type: 'TRANSFER_OUTCOME_UNKNOWN' },
      });
      expect(after.reference).toBeUndefined();
      expect(w.provider.callsOf('createTransfer')).toHaveLength(1);
      expect(ctx.queues.sent).toEqual([]);
      expect(w.events.types()).toEqual(['deposit.failed']);
      expect(w.table.leaseItems.size).toBe(0);
    },
  );
});

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

describe('transfer: refusals', () => {
  it.for(['BENEFICIARY_REQUIRED', 'BENEFICIARY_NOT_SUPPORTED', 'AMOUNT_BELOW_MINIMUM'])(
    "forgets the connection's remembered bank on %s, which contradicts its metadata",
    async (type) => {
      const w = world();
      const ctx = w.contexts.transfer();
      const deposit = await atTransfer(w);
      w.table.bankItems.set(bankKeyOf(deposit), {
        metadata: {} as never,
        until: w.clock.now() + 60_000,
      });
      w.table.bankItems.set('another-connection', { metadata: {} as never, until: w.clock.now() + 60_000 });
      w.provider.answer('createTransfer', answers.refusal(type));

      await transfer(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({ status: 'failed', failure: { type } });
      expect([...w.table.bankItems.keys()]).toEqual(['another-connection']);
    },
  );

  it('keeps the remembered bank on a refusal that says nothing of it (INSUFFICIENT_BALANCE)', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    w.table.bankItems.set(bankKeyOf(deposit), { metadata: {} as never, until: w.clock.now() + 60_000 });
    w.provider.answer('createTransfer', answers.refusal('INSUFFICIENT_BALANCE'));

    await transfer(deposit, ctx);

    expect(w.table.bankItems.has(bankKeyOf(deposit))).toBe(true);
  });

  it('waits for a busy connection with a growing delay, counted apart from retries, then fails PROVIDER_UNAVAILABLE past MAX_BUSY_WAITS', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    let deposit = await atTransfer(w);
    w.provider.answer(
      'createTransfer',
      ...Array.from({ length: MAX_BUSY_WAITS + 1 }, () => answers.refusal('OPERATION_IN_PROGRESS')),
    );

    const waits: number[] = [];
    for (let attempt = 0; attempt <= MAX_BUSY_WAITS; attempt += 1) {
      await transfer(deposit, ctx);
      deposit = w.table.current(deposit.id);
      if (deposit.status !== 'failed') {
        waits.push(deposit.stepCounters.busyWaits ?? 0);
        expect(deposit.stepCounters.retries).toBe(0);
        expect(deposit.transfer?.attempt).toBeUndefined();
      }
    }

    expect(waits).toEqual(Array.from({ length: MAX_BUSY_WAITS }, (_, index) => index + 1));
    expect(w.provider.callsOf('createTransfer')).toHaveLength(MAX_BUSY_WAITS + 1);
    expect(deposit).toMatchObject({
      status: 'failed',
      step: 'completed',
      failure: { type: 'PROVIDER_UNAVAILABLE' },
    });
    const delays = ctx.queues.sent.map((sent) => sent.delaySeconds);
    expect(delays.slice(0, 4)).toEqual([1, 3, 5, 7]);
    expect(Math.max(...delays)).toBe(30);
    // Each message names the version it wrote, so it runs.
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(Array(MAX_BUSY_WAITS).fill('transfer'));
    expect(w.events.types()).toEqual(['deposit.failed']);
    expect(w.table.leaseItems.size).toBe(0);
  });

  it('sends the details when the bank asks for them, and fails when it asks again', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    w.provider.answer(
      'createTransfer',
      answers.refusal('BENEFICIARY_DETAILS_REQUIRED'),
      answers.refusal('BENEFICIARY_DETAILS_REQUIRED', 'still wanted'),
    );

    await transfer(deposit, ctx);

    const asked = w.table.current(deposit.id);
    expect(asked).toMatchObject({
      status: 'initialized',
      step: 'transfer',
      beneficiaryWork: { sendDetails: true },
    });
    expect(asked.transfer?.attempt).toBeUndefined();
    expect(asked.history.at(-1)?.note).toBe('bank asked for details');
    expect(ctx.queues.sent).toEqual([
      {
        message: { depositId: deposit.id, step: 'transfer', version: asked.version, kind: 'run' },
        delaySeconds: 0,
      },
    ]);
    expect(w.table.leaseItems.size).toBe(0);

    await transfer(asked, ctx);

    const calls = w.provider.callsOf('createTransfer');
    expect(calls.map((call) => call[1])).toEqual([
      { ...order, receiverID: 'ben-1' },
      { ...order, receiverID: 'ben-1', beneficiary: inline(w) },
    ]);
    expect(w.table.current(deposit.id)).toMatchObject({
      status: 'failed',
      failure: { type: 'BENEFICIARY_DETAILS_REQUIRED', msg: 'still wanted' },
    });
    expect(ctx.queues.sent).toHaveLength(1);
    expect(w.events.types()).toEqual(['deposit.failed']);
  });

  it.for([
    {
      label: 'until the instant the bank names',
      msg: 'The beneficiary cools down until 2026-11-24T12:00:00.000Z',
      until: () => Date.parse('2026-11-24T12:00:00.000Z'),
    },
    {
      label: 'for a minute when the bank names no instant',
      msg: 'The beneficiary cools down',
      until: (now: number) => now + 60_000,
    },
  ])('goes back to wait-cooldown on BENEFICIARY_COOL_DOWN_PERIOD $label', async ({ msg, until }) => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w, { stepCounters: { retries: 1 } });
    w.provider.answer('createTransfer', answers.refusal('BENEFICIARY_COOL_DOWN_PERIOD', msg));

    await transfer(deposit, ctx);

    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({
      status: 'initialized',
      step: 'wait-cooldown',
      version: 4,
      cooldownUntil: until(w.clock.now()),
      stepCounters: { retries: 0 },
    });
    expect(after.transfer?.attempt).toBeUndefined();
    expect(after.sealedCredentials).toBeDefined();
    expect(ctx.queues.sent).toEqual([
      {
        message: { depositId: deposit.id, step: 'wait-cooldown', version: 4, kind: 'run' },
        delaySeconds: 0,
      },
    ]);
    expect(w.table.leaseItems.size).toBe(0);
  });

  it('tells the caller it cools down (deposit.cooling_down with resumesAt) when the bank names a cool-down', async () => {
    // docs/deposits.md, webhooks: `deposit.cooling_down` — the deposit waits for the beneficiary's cool-down.
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    w.provider.answer(
      'createTransfer',
      answers.refusal('BENEFICIARY_COOL_DOWN_PERIOD', 'until 2026-11-24T12:00:00.000Z'),
    );

    await transfer(deposit, ctx);

    expect(w.events.published).toEqual([
      expect.objectContaining({
        id: `${deposit.id}.v4`,
        type: 'deposit.cooling_down',
        data: expect.objectContaining({ resumesAt: '2026-11-24T12:00:00.000Z' }),
      }),
    ]);
  });

  it("fails any other refusal with its type, the bank's words kept for the operators, and frees the connection", async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    w.provider.answer('createTransfer', answers.refusal('INSUFFICIENT_BALANCE', 'Not enough money'));

    await transfer(deposit, ctx);

    const after = w.table.current(deposit.id);
    expect(after).toMatchObject({
      status: 'failed',
      step: 'completed',
      failure: { type: 'INSUFFICIENT_BALANCE', msg: 'Not enough money' },
    });
    expect(after.sealedCredentials).toBeUndefined();
    expect(w.provider.callsOf('createTransfer')).toHaveLength(1);
    expect(ctx.queues.sent).toEqual([]);
    expect(w.events.published).toEqual([
      expect.objectContaining({
        type: 'deposit.failed',
        data: {
          ...eventFields(deposit, w.clock.now()),
          status: 'failed',
          step: 'completed',
          version: after.version,
          type: 'INSUFFICIENT_BALANCE',
          // The owner hears the type with its fixed message, never the bank's own words.
          msg: 'Insufficient balance in the sender account',
        },
      }),
    ]);
    expect(w.table.leaseItems.size).toBe(0);
  });

  it('removes the attempt record when a clear refusal fails the deposit (nothing moved)', async () => {
    // docs/design.md, "At most one transfer per deposit": a clear refusal removes the attempt.
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    w.provider.answer('createTransfer', answers.refusal('INSUFFICIENT_BALANCE'));

    await transfer(deposit, ctx);

    const after = w.table.current(deposit.id);
    expect(after.failure?.type).toBe('INSUFFICIENT_BALANCE');
    expect(after.transfer?.attempt).toBeUndefined();
  });
});

describe('transfer: the connection and concurrent writers', () => {
  it('waits for a connection another holds past its patience: once, recorded (busyWaits), through its queue', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    w.table.leaseItems.set(ownerKey, { holder: 'someone-else', until: w.clock.now() + 60_000 });
    const startedAt = w.clock.now();

    await transfer(deposit, ctx);

    expect(w.provider.calls).toEqual([]);
    expect(
      w.table.writes.map((write) => [write.version, write.stepCounters.busyWaits, write.transfer?.attempt]),
    ).toEqual([[3, 1, undefined]]);
    expect(w.table.current(deposit.id).history.at(-1)?.note).toBe('connection busy');
    expect(w.clock.now() - startedAt).toBeGreaterThan(0);
    expect(w.clock.now() - startedAt).toBeLessThanOrEqual(settings.leasePatienceMs + 400);
    expect(ctx.queues.sent).toEqual([
      { message: { depositId: deposit.id, step: 'transfer', version: 3, kind: 'run' }, delaySeconds: 1 },
    ]);
    expect(w.table.leaseItems.get(ownerKey)?.holder).toBe('someone-else');
  });

  it('waits a second at a time for a lease another deposit holds, then longer, then fails PROVIDER_UNAVAILABLE', async () => {
    // prepare: another deposit of the connection holds the lease for good
    const w = world();
    const ctx = w.contexts.transfer();
    let deposit = await atTransfer(w);
    w.table.leaseItems.set(ownerKey, { holder: 'dep_other#own', until: w.clock.now() + 3_600_000 });

    // act: each wait's message comes back, until the deposit ends
    for (let run = 0; run <= MAX_BUSY_WAITS; run += 1) {
      await transfer(deposit, ctx);
      deposit = w.table.current(deposit.id);
    }

    // assess
    const delays = ctx.queues.sent.map((sent) => sent.delaySeconds);
    expect(delays).toEqual([
      ...Array(SHORT_LEASE_WAITS).fill(1),
      ...Array.from({ length: MAX_BUSY_WAITS - SHORT_LEASE_WAITS }, (_, index) =>
        Math.min(30, 1 + index * 2),
      ),
    ]);
    expect(delays.reduce((sum, delay) => sum + delay, 0)).toBeGreaterThan(settings.inputTtlMs / 1000);
    expect(deposit).toMatchObject({ status: 'failed', failure: { type: 'PROVIDER_UNAVAILABLE' } });
    expect(w.provider.calls).toEqual([]);
  });

  it('does not call the provider when another writer moved the deposit, and releases the lease', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    w.table.put({ ...deposit, version: 3 });
    w.provider.answer('createTransfer', answers.done({ reference: 'NEVER' }));

    await transfer(deposit, ctx);

    expect(w.provider.calls).toEqual([]);
    expect(w.table.writes).toEqual([]);
    expect(w.table.current(deposit.id).version).toBe(3);
    expect(w.table.leaseItems.size).toBe(0);
    expect(ctx.queues.sent).toEqual([]);
    expect(w.events.published).toEqual([]);
  });

  it('gives the connection back when another writer moved the deposit while the bank asked a question', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await atTransfer(w);
    const port = ctx.provider;
    ctx.provider = {
      ...port,
      createTransfer: async (...args) => {
        const answer = await port.createTransfer(...args);
        // A concurrent writer (say, a cancel) moves the deposit while the call is out.
        const current = w.table.current(deposit.id);
        w.table.put({ ...current, version: current.version + 1 });
        return answer;
      },
    };
    w.provider.answer('createTransfer', answers.question());

    // act
    await transfer(deposit, ctx);

    // assess
    expect(w.table.leaseItems.size).toBe(0);
    expect(w.table.current(deposit.id).status).toBe('initialized');
    expect(w.events.published).toEqual([]);
  });

  it('does not call the provider when another writer moved a deposit whose cool-down is over', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({
      step: 'wait-cooldown',
      version: 3,
      bank: banks.coolDown,
      beneficiaryId: 'ben-1',
      cooldownUntil: w.clock.now() - 1,
    });
    w.table.put({ ...deposit, step: 'transfer', version: 4 });
    w.provider.answer('createTransfer', answers.done({ reference: 'NEVER' }));

    await transfer(deposit, ctx);

    expect(w.provider.calls).toEqual([]);
    expect(w.table.writes).toEqual([]);
    expect(w.table.leaseItems.size).toBe(0);
    expect(ctx.queues.sent).toEqual([]);
  });

  it('sends only to the transfer and wait-cooldown queues, and schedules only the transfer', async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const now = w.clock.now();
    const early = await w.deposit({
      step: 'wait-cooldown',
      bank: banks.coolDown,
      beneficiaryId: 'ben-1',
      cooldownUntil: now + 30_000,
    });
    const late = await w.deposit({
      step: 'wait-cooldown',
      bank: banks.hiddenCoolDown,
      beneficiaryId: 'ben-1',
      cooldownUntil: now + 86_400_000,
    });
    const asking = await atTransfer(w, { ownerKey: 'owner-asking' });
    const busy = await atTransfer(w, { ownerKey: 'owner-busy' });
    const details = await atTransfer(w, { ownerKey: 'owner-details' });
    const cooling = await atTransfer(w, { ownerKey: 'owner-cooling' });
    w.table.leaseItems.set('owner-busy', { holder: 'someone-else', until: now + 3_600_000 });
    w.provider.answer(
      'createTransfer',
      answers.question(),
      answers.refusal('BENEFICIARY_DETAILS_REQUIRED'),
      answers.refusal('BENEFICIARY_COOL_DOWN_PERIOD'),
    );

    for (const deposit of [early, late, asking, busy, details, cooling]) await transfer(deposit, ctx);

    expect(new Set(ctx.queues.sent.map((sent) => sent.message.step))).toEqual(
      new Set(['transfer', 'wait-cooldown']),
    );
    expect([...ctx.scheduler.schedules.values()].map((schedule) => schedule.message.step)).toEqual([
      'transfer',
    ]);
    // The fakes hold the handler to its reach: any other queue or schedule target throws.
    // (resolve-bank it may send to: a lease it frees may wake a deposit waiting there for one.)
    const elsewhere = { depositId: early.id, step: 'completed', version: 0, kind: 'run' } as const;
    await expect(ctx.queues.send(elsewhere as never)).rejects.toThrow('no queue for completed');
    await expect(ctx.scheduler.scheduleAt('x', new Date(now), elsewhere as never)).rejects.toThrow(
      'no schedule target',
    );
  });
});
