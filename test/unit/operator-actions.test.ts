/**
 * An operator's actions, through the fakes: resolving an unknown transfer outcome (done or failed)
 * in one conditional write carrying the resolution, the note and the caller's event, once only;
 * cancelling any deposit before its transfer, naming who and why; redriving a deposit in flight
 * with the message the sweeper would send.
 */
import { describe, expect, it } from 'vitest';
import type { Deposit } from '#shared/deposits/model/deposit';
import { reach, type SendsOf } from '#shared/deposits/reach';
import { cancelAsOperator, redriveDeposit } from '#shared/operator/interventions';
import { resolveDeposit } from '#shared/operator/resolve';
import { FakeQueues } from '../support/deposit-fakes.ts';
import { banks, settings, world } from '../support/deposit-world.ts';
import { refusal } from '../support/refusal.ts';

type World = ReturnType<typeof world>;
const who = 'arn:aws:iam::123456789012:user/ops-ana';
const unknown: Partial<Deposit> = {
  status: 'failed',
  step: 'completed',
  failure: { type: 'TRANSFER_OUTCOME_UNKNOWN', msg: 'timeout; a transfer attempt is on record' },
  transfer: { attempt: { at: 0, answering: false } },
  sealedCredentials: undefined,
  checkAt: undefined,
  version: 5,
};

/**
 * What a resolve touches: the deposit records, the clock, the settings, the metric; and the approval
 * thresholds, here above this world's deposit (AED 25.50), which one operator resolves alone
 * (`operator-approval.test.ts` is about those above).
 */
const transitions = (w: World) => ({
  deposits: w.table.deposits,
  clock: w.clock,
  settings,
  observer: w.observer,
  approvalAbove: { AED: 100_000 },
});

describe('resolve', () => {
  it('done: the deposit is done with the reference, the resolution, the note and deposit.done in one write', async () => {
    const w = world();
    const deposit = await w.deposit(unknown);
    w.clock.advance(3_600_000);

    const body = await resolveDeposit(
      { depositId: deposit.id, outcome: 'done', reference: 'TRX-1', reason: 'On the statement', who },
      transitions(w),
    );

    const stored = w.table.current(deposit.id);
    expect(w.table.writes).toHaveLength(1);
    expect(stored).toMatchObject({
      status: 'done',
      step: 'completed',
      version: 6,
      reference: 'TRX-1',
      resolution: { outcome: 'done', by: who, reason: 'On the statement', at: w.clock.now() },
    });
    expect(stored.failure).toBeUndefined();
    expect(stored.history.at(-1)).toEqual({
      step: 'completed',
      status: 'done',
      at: w.clock.now(),
      // The owner reads the history too: no one's identity, no reason.
      note: 'resolved done by an operator',
    });
    expect(w.events.published).toEqual([
      expect.objectContaining({
        id: `${deposit.id}.v6`,
        type: 'deposit.done',
        data: expect.objectContaining({
          status: 'done',
          reference: 'TRX-1',
          resolved: true,
        }),
      }),
    ]);
    expect(body).toMatchObject({
      status: 'done',
      success: true,
      reference: 'TRX-1',
      resolution: { outcome: 'done', by: who },
    });
    expect(body.type).toBeUndefined();
  });

  it('failed: the deposit stays failed, now TRANSFER_NOT_EXECUTED with the reason, and deposit.failed tells the caller', async () => {
    const w = world();
    const deposit = await w.deposit(unknown);

    const body = await resolveDeposit(
      { depositId: deposit.id, outcome: 'failed', reason: 'The bank has no such transfer', who },
      transitions(w),
    );

    expect(w.table.current(deposit.id)).toMatchObject({
      status: 'failed',
      failure: { type: 'TRANSFER_NOT_EXECUTED', msg: 'The bank has no such transfer' },
      resolution: { outcome: 'failed', by: who },
    });
    expect(w.events.published).toEqual([
      expect.objectContaining({
        type: 'deposit.failed',
        data: expect.objectContaining({
          type: 'TRANSFER_NOT_EXECUTED',
          msg: 'The bank did not carry the transfer out (settled by an operator)',
          resolved: true,
        }),
      }),
    ]);
    expect(body).toMatchObject({ status: 'failed', type: 'TRANSFER_NOT_EXECUTED' });
  });

  it('refuses a second resolve, and any deposit whose outcome is not unknown: 409 DEPOSIT_NOT_RESOLVABLE', async () => {
    const w = world();
    const deposit = await w.deposit(unknown);
    const request = { depositId: deposit.id, outcome: 'failed' as const, reason: 'not moved', who };
    await resolveDeposit(request, transitions(w));
    const others = [
      await w.deposit({ step: 'transfer' }),
      await w.deposit({ status: 'done', step: 'completed', reference: 'R' }),
      await w.deposit({ status: 'failed', step: 'completed', failure: { type: 'STEP_FAILED', msg: 'x' } }),
    ];

    const again = await refusal(
      resolveDeposit({ ...request, outcome: 'done', reference: 'R' }, transitions(w)),
    );
    const refused = await Promise.all(
      others.map((other) => refusal(resolveDeposit({ ...request, depositId: other.id }, transitions(w)))),
    );

    for (const error of [again, ...refused]) {
      expect(error).toMatchObject({ type: 'DEPOSIT_NOT_RESOLVABLE' });
    }
    expect(again.message).toContain(`resolved failed by ${who}`);
    expect(w.table.writes).toHaveLength(1);
  });

  it('of two operators resolving at once, the second finds it resolved (the write is conditional)', async () => {
    const w = world();
    const deposit = await w.deposit(unknown);
    const ctx = transitions(w);
    let raced = false;
    // fault: another operator's resolve lands between this one's read and its write
    const racing = {
      ...ctx,
      deposits: {
        get: ctx.deposits.get,
        save: async (next: Deposit, expected: number) => {
          if (!raced) {
            raced = true;
            await resolveDeposit(
              { depositId: deposit.id, outcome: 'done', reference: 'R-9', reason: 'first', who: 'ops-bo' },
              ctx,
            );
          }
          return ctx.deposits.save(next, expected);
        },
      },
    };

    const error = await refusal(
      resolveDeposit({ depositId: deposit.id, outcome: 'failed', reason: 'second', who }, racing),
    );

    expect(error).toMatchObject({ type: 'DEPOSIT_NOT_RESOLVABLE' });
    expect(w.table.current(deposit.id).resolution).toMatchObject({ by: 'ops-bo', outcome: 'done' });
    expect(w.events.types()).toEqual(['deposit.done']);
  });

  it('answers 404 DEPOSIT_NOT_FOUND for an unknown id', async () => {
    const w = world();
    const error = await refusal(
      resolveDeposit({ depositId: 'dep_none', outcome: 'failed', reason: 'r', who }, transitions(w)),
    );
    expect(error).toMatchObject({ type: 'DEPOSIT_NOT_FOUND' });
  });
});

describe('cancel by an operator', () => {
  it("ends any connection's deposit before its transfer, naming who and why", async () => {
    const w = world();
    const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });

    const body = await cancelAsOperator(
      { depositId: deposit.id, reason: 'Customer called', who },
      w.contexts.cancel(),
    );

    const said = `Cancelled by ${who}: Customer called`;
    const stored = w.table.current(deposit.id);
    expect(stored).toMatchObject({
      status: 'failed',
      step: 'completed',
      failure: { type: 'CANCELLED', msg: said },
    });
    expect(stored.history.at(-1)?.note).toBe('cancelled by an operator');
    expect(stored.sealedCredentials).toBeUndefined();
    // The owner hears the type and its fixed message: who and why stay with the operators.
    expect(w.events.published.at(-1)).toMatchObject({
      type: 'deposit.failed',
      data: { type: 'CANCELLED', msg: 'The deposit was cancelled before its transfer' },
    });
    expect(JSON.stringify(w.events.published)).not.toContain(who);
    expect(body).toMatchObject({ status: 'failed', type: 'CANCELLED', msg: said });
  });

  it('refuses a deposit at its transfer or finished (409), and an unknown id (404)', async () => {
    const w = world();
    const atTransfer = await w.deposit({ step: 'transfer' });
    const done = await w.deposit({ status: 'done', step: 'completed' });

    const errors = await Promise.all(
      [atTransfer.id, done.id, 'dep_none'].map((depositId) =>
        refusal(cancelAsOperator({ depositId, reason: 'r', who }, w.contexts.cancel())),
      ),
    );

    expect(errors.map((error) => error.type)).toEqual([
      'DEPOSIT_NOT_CANCELLABLE',
      'DEPOSIT_NOT_CANCELLABLE',
      'DEPOSIT_NOT_FOUND',
    ]);
  });
});

describe('redrive', () => {
  const context = (w: World) => {
    const queues = new FakeQueues<SendsOf<'operator-redrive'>>(reach['operator-redrive'].sends);
    return { deposits: w.table.deposits, queues, clock: w.clock };
  };

  it("sends a deposit in flight its own step's message at its version, as the sweeper would", async () => {
    const w = world();
    const running = await w.deposit({ step: 'ensure-beneficiary', version: 3 });
    const asking = await w.deposit({ step: 'resolve-bank', status: 'user_input_required', version: 2 });
    const ctx = context(w);

    const answer = await redriveDeposit({ depositId: running.id }, ctx);
    await redriveDeposit({ depositId: asking.id }, ctx);

    expect(answer).toEqual({
      operationID: running.id,
      step: 'ensure-beneficiary',
      version: 3,
      redriven: true,
    });
    expect(ctx.queues.sent.map((sent) => sent.message)).toEqual([
      { depositId: running.id, step: 'ensure-beneficiary', version: 3, kind: 'run' },
      { depositId: asking.id, step: 'resolve-bank', version: 2, kind: 'expire-input' },
    ]);
    expect(w.table.writes).toHaveLength(0);
  });

  it('refuses a finished deposit (409 DEPOSIT_NOT_IN_FLIGHT) and an unknown id (404)', async () => {
    const w = world();
    const done = await w.deposit({ status: 'done', step: 'completed' });
    const ctx = context(w);

    const finished = await refusal(redriveDeposit({ depositId: done.id }, ctx));
    const missing = await refusal(redriveDeposit({ depositId: 'dep_none' }, ctx));

    expect(finished).toMatchObject({ type: 'DEPOSIT_NOT_IN_FLIGHT' });
    expect(missing).toMatchObject({ type: 'DEPOSIT_NOT_FOUND' });
    expect(ctx.queues.sent).toEqual([]);
  });

  it('respects the stall guard: a transfer still in flight is refused (409) until its check time, then re-driven', async () => {
    // prepare: the transfer attempt was recorded a moment ago; its call may be running
    const w = world();
    const attempt = { at: w.clock.now(), answering: false };
    const inFlight = await w.deposit({ step: 'transfer', version: 5, transfer: { attempt: attempt } });
    const ctx = context(w);

    // act
    const early = await refusal(redriveDeposit({ depositId: inFlight.id }, ctx));
    w.clock.advance((inFlight.checkAt ?? 0) - w.clock.now());
    const stalled = await redriveDeposit({ depositId: inFlight.id }, ctx);

    // assess
    expect(early).toMatchObject({ type: 'DEPOSIT_TRANSFER_IN_FLIGHT' });
    expect(stalled).toMatchObject({ step: 'transfer', version: 5, redriven: true });
    expect(ctx.queues.sent.map((sent) => sent.message)).toEqual([
      { depositId: inFlight.id, step: 'transfer', version: 5, kind: 'run' },
    ]);
  });

  it('re-drives a finished payment source at its transfer step, which hands on the followers it left', async () => {
    const w = world();
    const ready = await w.deposit({ purpose: 'source', status: 'done', step: 'completed', version: 9 });
    const ctx = context(w);

    const answer = await redriveDeposit({ depositId: ready.id }, ctx);

    expect(answer).toMatchObject({ step: 'transfer', version: 9, redriven: true });
    expect(ctx.queues.sent.map((sent) => sent.message)).toEqual([
      { depositId: ready.id, step: 'transfer', version: 9, kind: 'run' },
    ]);
  });
});
