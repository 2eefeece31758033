/**
 * A step handler runs only its own step: the message runner, the wait-cooldown step, the sweeper,
 * and the adapters' refusal to reach a queue or schedule target a handler was not given.
 */
import { describe, expect, it } from 'vitest';
import { EventBridgeWakeScheduler } from '#shared/adapters/scheduler';
import { SqsStepQueues } from '#shared/adapters/step-queues';
import { sweep } from '#shared/deposits/background/sweeper';
import { handleStepMessage } from '#shared/deposits/journey/step-messages';
import type { StepMessage } from '#shared/deposits/model/messages';
import { waitCooldown } from '#shared/deposits/steps/wait-cooldown';
import { ProviderRefusal } from '#shared/provider/client';
import { world } from '../support/deposit-world.ts';

function runner(w: ReturnType<typeof world>, step: 'transfer' | 'ensure-beneficiary' = 'transfer') {
  const ran: string[] = [];
  const expired: string[] = [];
  const handler = {
    step,
    deposits: w.table.deposits,
    run: async (deposit: { id: string; step: string }) => {
      ran.push(`${deposit.id}@${deposit.step}`);
    },
    expire: async (deposit: { id: string }) => {
      expired.push(deposit.id);
    },
    giveUp: async () => {
      throw new Error('no deposit here keeps failing');
    },
    handOn: async () => {
      throw new Error('no source here');
    },
    limits: { maxAttempts: 5, maxRedrives: 6, passesWithTime: () => false },
  };
  return { handler, ran, expired };
}

const message = (
  depositId: string,
  step: StepMessage['step'],
  version: number,
  kind: StepMessage['kind'] = 'run',
) => ({ depositId, step, version, kind }) as StepMessage;

describe('a step handler', () => {
  it('runs a message for its own step at the deposit version', async () => {
    const w = world();
    const { handler, ran } = runner(w);
    const deposit = await w.deposit({ step: 'transfer', version: 3 });

    expect(await handleStepMessage(handler, message(deposit.id, 'transfer', 3))).toBe('ran');
    expect(ran).toEqual([`${deposit.id}@transfer`]);
  });

  it('does not run a message naming another step, and does not even read the deposit', async () => {
    const w = world();
    const { handler, ran } = runner(w);
    const deposit = await w.deposit({ step: 'ensure-beneficiary', version: 1 });
    w.table.items.clear();

    expect(await handleStepMessage(handler, message(deposit.id, 'ensure-beneficiary', 1))).toBe('other-step');
    expect(ran).toEqual([]);
  });

  it('drops duplicates: an older version, a step the deposit has left, a finished or unknown deposit', async () => {
    const w = world();
    const { handler, ran } = runner(w);
    const moved = await w.deposit({ step: 'transfer', version: 4 });
    const done = await w.deposit({ step: 'completed', status: 'done', version: 5 });
    const left = await w.deposit({ step: 'resolve-bank', version: 2 });

    expect(await handleStepMessage(handler, message(moved.id, 'transfer', 3))).toBe('stale');
    expect(await handleStepMessage(handler, message(left.id, 'transfer', 2))).toBe('stale');
    expect(await handleStepMessage(handler, message(done.id, 'transfer', 5))).toBe('gone');
    expect(await handleStepMessage(handler, message('dep_unknown', 'transfer', 0))).toBe('gone');
    expect(ran).toEqual([]);
  });

  it('lets the transfer wake a deposit in its cool-down, and leaves one waiting for its caller alone', async () => {
    const w = world();
    const { handler, ran } = runner(w);
    const cooling = await w.deposit({ step: 'wait-cooldown', version: 2, beneficiaryId: 'ben-1' });
    const waiting = await w.deposit({ step: 'transfer', status: 'user_input_required', version: 6 });

    expect(await handleStepMessage(handler, message(cooling.id, 'transfer', 2))).toBe('ran');
    expect(await handleStepMessage(handler, message(waiting.id, 'transfer', 6))).toBe('waiting');
    expect(ran).toEqual([`${cooling.id}@wait-cooldown`]);
  });

  it('wakes the look-up of a beneficiary whose id is not known yet after the cool-down, never the transfer', async () => {
    const w = world();
    const transfers = runner(w);
    const lookups = runner(w, 'ensure-beneficiary');
    const cooling = await w.deposit({ step: 'wait-cooldown', version: 2 });

    expect(await handleStepMessage(transfers.handler, message(cooling.id, 'transfer', 2))).toBe('stale');
    expect(await handleStepMessage(lookups.handler, message(cooling.id, 'ensure-beneficiary', 2))).toBe(
      'ran',
    );
    expect(transfers.ran).toEqual([]);
    expect(lookups.ran).toEqual([`${cooling.id}@wait-cooldown`]);
  });

  it('sends an expiry of the caller question to the step expiry, and only where the step asks questions', async () => {
    const w = world();
    const { handler, expired } = runner(w);
    const waiting = await w.deposit({ step: 'transfer', status: 'user_input_required', version: 6 });
    const noExpiry = { ...handler, step: 'resolve-bank' as const, expire: undefined };

    expect(await handleStepMessage(handler, message(waiting.id, 'transfer', 6, 'expire-input'))).toBe(
      'expired',
    );
    expect(await handleStepMessage(noExpiry, message(waiting.id, 'resolve-bank', 6, 'expire-input'))).toBe(
      'other-step',
    );
    expect(expired).toEqual([waiting.id]);
  });
});

describe('wait-cooldown', () => {
  it('arms a schedule on the transfer queue for a long cool-down, named per deposit and time', async () => {
    const w = world();
    const ctx = w.contexts.waitCooldown();
    const until = w.clock.now() + 86_400_000;
    const deposit = await w.deposit({
      step: 'wait-cooldown',
      version: 3,
      cooldownUntil: until,
      beneficiaryId: 'ben-1',
    });

    await waitCooldown(deposit, ctx);
    await waitCooldown(deposit, ctx);

    expect([...ctx.scheduler.schedules]).toEqual([
      [
        `${deposit.id}-transfer-${Math.floor(until / 1000)}`,
        { at: until, message: { depositId: deposit.id, step: 'transfer', version: 3, kind: 'run' } },
      ],
    ]);
    expect(ctx.queues.sent).toEqual([]);
    expect(w.table.writes).toEqual([]);
  });

  it('sends a delayed transfer message for a short one, and an immediate one when it is over', async () => {
    const w = world();
    const ctx = w.contexts.waitCooldown();
    const known = { beneficiaryId: 'ben-1' };
    const short = await w.deposit({ step: 'wait-cooldown', cooldownUntil: w.clock.now() + 3_600, ...known });
    const over = await w.deposit({ step: 'wait-cooldown', cooldownUntil: w.clock.now() - 1, ...known });

    await waitCooldown(short, ctx);
    await waitCooldown(over, ctx);

    expect(
      ctx.queues.sent.map((sent) => [sent.message.depositId, sent.message.step, sent.delaySeconds]),
    ).toEqual([
      [short.id, 'transfer', 4],
      [over.id, 'transfer', 0],
    ]);
    expect(ctx.scheduler.schedules.size).toBe(0);
  });

  it("wakes ensure-beneficiary instead when the beneficiary's id is still to be looked up", async () => {
    const w = world();
    const ctx = w.contexts.waitCooldown();
    const until = w.clock.now() + 86_400_000;
    const deposit = await w.deposit({ step: 'wait-cooldown', version: 2, cooldownUntil: until });

    await waitCooldown(deposit, ctx);

    expect([...ctx.scheduler.schedules.values()]).toEqual([
      { at: until, message: { depositId: deposit.id, step: 'ensure-beneficiary', version: 2, kind: 'run' } },
    ]);
  });
});

describe('the sweeper', () => {
  it('re-drives each due deposit to its own step queue, and a waiting one to its question expiry', async () => {
    const w = world();
    const ctx = w.contexts.sweep();
    const past = w.clock.now() - 1;
    const stuck = await w.deposit({ step: 'ensure-beneficiary', version: 2, checkAt: past - 10 });
    const cooling = await w.deposit({ step: 'wait-cooldown', version: 3, checkAt: past });
    const asking = await w.deposit({
      step: 'transfer',
      status: 'user_input_required',
      version: 5,
      checkAt: past,
    });
    await w.deposit({ step: 'transfer', version: 1, checkAt: w.clock.now() + 60_000 });
    await w.deposit({ step: 'completed', status: 'done', checkAt: undefined });

    const { redriven } = await sweep(ctx);

    expect(redriven).toBe(3);
    expect(ctx.queues.sent.map((sent) => sent.message)).toEqual([
      { depositId: stuck.id, step: 'ensure-beneficiary', version: 2, kind: 'run' },
      { depositId: cooling.id, step: 'wait-cooldown', version: 3, kind: 'run' },
      { depositId: asking.id, step: 'transfer', version: 5, kind: 'expire-input' },
    ]);
  });

  it('takes the oldest first, a page at a time', async () => {
    const w = world();
    const ctx = w.contexts.sweep();
    const now = w.clock.now();
    const oldest = await w.deposit({ checkAt: now - 300 });
    const newest = await w.deposit({ checkAt: now - 100 });
    const older = await w.deposit({ checkAt: now - 200 });

    expect((await sweep(ctx, 2)).redriven).toBe(3);
    expect(ctx.queues.sent.map((sent) => sent.message.depositId)).toEqual([oldest.id, older.id, newest.id]);
  });
});

describe('the adapters a handler is given', () => {
  const neverCalled = {
    send: () => {
      throw new Error('the AWS client must not be called');
    },
  };

  it('have no queue a handler does not send to', async () => {
    const queues = new SqsStepQueues(
      neverCalled as never,
      { transfer: 'https://sqs.local/transfer' } as Record<'transfer' | 'wait-cooldown', string>,
    );

    await expect(
      queues.send({ depositId: 'd', step: 'wait-cooldown', version: 0, kind: 'run' }),
    ).rejects.toThrow('does not send to the wait-cooldown queue');
  });

  it('have no schedule target a handler does not wake', async () => {
    const scheduler = new EventBridgeWakeScheduler(neverCalled as never, {
      groupName: 'deposits',
      queueArns: { transfer: 'arn:aws:sqs:us-east-1:0:transfer' } as Record<
        'transfer' | 'ensure-beneficiary',
        string
      >,
      roleArn: 'arn:aws:iam::0:role/scheduler',
    });

    await expect(
      scheduler.scheduleAt('n', new Date(), {
        depositId: 'd',
        step: 'ensure-beneficiary',
        version: 0,
        kind: 'run',
      }),
    ).rejects.toThrow('does not wake the ensure-beneficiary step');
  });
});

describe('the provider client', () => {
  it('gives the end of a cool-down as a value, from the refusal the provider sends', () => {
    const named = new ProviderRefusal(
      'BENEFICIARY_COOL_DOWN_PERIOD',
      'The beneficiary is in its cool-down period until 2026-11-24T08:30:00.000Z',
      422,
    );
    const unnamed = new ProviderRefusal('BENEFICIARY_COOL_DOWN_PERIOD', 'Try later', 422);
    const other = new ProviderRefusal('INVALID_IBAN', 'until 2026-11-24T08:30:00.000Z', 400);

    expect(named.coolDownEndsAt).toBe(Date.UTC(2026, 10, 24, 8, 30));
    expect(unnamed.coolDownEndsAt).toBeUndefined();
    expect(other.coolDownEndsAt).toBeUndefined();
  });
});
