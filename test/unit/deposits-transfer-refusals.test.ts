/** The transfer step through the fakes of its ports: the bank's refusals, and what follows each. */
import { describe, expect, it } from 'vitest';
import { MAX_BUSY_WAITS } from '#shared/deposits/journey/later';
import { transfer } from '#shared/deposits/steps/transfer';
import { bankKeyOf } from '../support/deposit-fakes.ts';
import { answers, eventFields, settings, world } from '../support/deposit-world.ts';
import { atTransfer, inline, order } from '../support/transfer-step.ts';

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
    {
      label: 'for COOL_DOWN_RETRY_SECONDS when the bank names no instant (15 s set)',
      msg: 'The beneficiary cools down',
      until: (now: number) => now + 15_000,
      coolDownRetryMs: 15_000,
    },
    {
      label: 'at least COOL_DOWN_RETRY_SECONDS when the instant the bank names is sooner',
      msg: 'The beneficiary cools down until 2026-11-23T12:00:10.000Z',
      until: (now: number) => now + 60_000,
    },
  ])(
    'goes back to wait-cooldown on BENEFICIARY_COOL_DOWN_PERIOD $label',
    async ({ msg, until, coolDownRetryMs }) => {
      const w = world();
      const ctx = {
        ...w.contexts.transfer(),
        settings: { ...settings, coolDownRetryMs: coolDownRetryMs ?? settings.coolDownRetryMs },
      };
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
    },
  );

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
