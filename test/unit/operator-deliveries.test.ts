/**
 * Webhook deliveries and the console's numbers, through the fakes: the notifier records each try
 * (delivered, retrying with its next try, dead-lettered after the last), and a record it cannot
 * write never costs the delivery; an operator reads a deposit's deliveries in its events' order and
 * resends one, the same event (the same id, which the receiver de-duplicates on), counted with who;
 * the stats count each bucket, spread the creations over bins and time the done deposits by step.
 */
import { describe, expect, it } from 'vitest';
import { type DeliverContext, deliverEvent } from '#shared/deposits/background/deliveries';
import type { DepositEvent } from '#shared/deposits/model/events';
import { deliveriesOf, resendEvent } from '#shared/operator/deliveries';
import { depositStats } from '#shared/operator/stats';
import { world } from '../support/deposit-world.ts';
import { FakeDeliveryRecords, fakeStatusIndex, fakeStatusTimes } from '../support/operator-fakes.ts';
import { FakeEventQueue } from '../support/step-fakes.ts';

const eventOf = (
  depositId: string,
  version: number,
  type: DepositEvent['type'] = 'deposit.done',
): DepositEvent => ({
  id: `${depositId}.v${version}`,
  type,
  depositId,
  occurredAt: new Date(Date.UTC(2026, 10, 23, 12, 0, 0)).toISOString(),
  data: { version, amount: 150.25, currency: 'AED' },
});

/** A webhook answering the statuses given, one per try (a number: that status; 'down': no answer). */
function webhook(answers: (number | 'down')[]) {
  const sent: DepositEvent[] = [];
  return {
    sent,
    deliver: async (event: DepositEvent) => {
      sent.push(event);
      const answer = answers.shift() ?? 200;
      if (answer === 'down') throw new Error('fetch failed: connect ECONNREFUSED');
      if (answer >= 300) throw Object.assign(new Error(`webhook answered ${answer}`), { status: answer });
      return { status: answer };
    },
  };
}

function delivering(answers: (number | 'down')[]) {
  const w = world();
  const records = new FakeDeliveryRecords();
  const hidden: number[] = [];
  const ctx: DeliverContext = {
    webhook: webhook(answers),
    records,
    clock: w.clock,
    retryBaseSeconds: 2,
    maxTries: 3,
    retryIn: async (seconds) => {
      hidden.push(seconds);
    },
  };
  return { w, records, hidden, ctx };
}

describe('the notifier records each try', () => {
  it('a delivery taken at once: delivered, with the answer’s status', async () => {
    const { records, ctx, w } = delivering([204]);
    const event = eventOf('dep_1', 6);

    const result = await deliverEvent(event, 1, ctx);

    expect(result).toEqual({});
    const [record] = await records.of('dep_1');
    expect(record).toMatchObject({
      eventId: 'dep_1.v6',
      state: 'delivered',
      attempts: 1,
      deliveredAt: w.clock.now(),
      tries: [{ outcome: 'delivered', status: 204 }],
    });
    expect(record?.event).toEqual(event);
  });

  it('a refused one: retrying, its next try when the message comes back, the message hidden that long and failed', async () => {
    const { records, ctx, hidden, w } = delivering([503, 'down']);
    const event = eventOf('dep_1', 6);

    await expect(deliverEvent(event, 1, ctx)).rejects.toThrow('webhook answered 503');
    await expect(deliverEvent(event, 2, ctx)).rejects.toThrow('ECONNREFUSED');

    expect(hidden).toEqual([2, 4]);
    const [record] = await records.of('dep_1');
    expect(record).toMatchObject({ state: 'retrying', attempts: 2, nextTryAt: w.clock.now() + 4_000 });
    expect(record?.tries).toEqual([
      expect.objectContaining({ outcome: 'failed', status: 503, error: 'webhook answered 503' }),
      expect.objectContaining({ outcome: 'failed', error: 'fetch failed: connect ECONNREFUSED' }),
    ]);
    expect(record?.tries[1]).not.toHaveProperty('status');
  });

  it('the last try refused: dead-lettered, no next try, the message left to its DLQ', async () => {
    const { records, ctx, hidden } = delivering([500]);

    await expect(deliverEvent(eventOf('dep_1', 6), 3, ctx)).rejects.toThrow();

    expect(hidden).toEqual([]);
    const [record] = await records.of('dep_1');
    expect(record?.state).toBe('dead_lettered');
    expect(record).not.toHaveProperty('nextTryAt');
  });

  it('a record it cannot write never costs a delivery: the error is answered, for the log', async () => {
    const { ctx } = delivering([200]);
    const broken = new Error('ProvisionedThroughputExceededException');
    ctx.records = { tried: async () => Promise.reject(broken) };

    expect(await deliverEvent(eventOf('dep_1', 6), 1, ctx)).toEqual({ recordError: broken });
  });
});

describe("an operator's deliveries", () => {
  it("lists a deposit's deliveries in its events' order, and is 404 for a deposit that is not", async () => {
    const { w, records, ctx } = delivering([200, 200, 200]);
    const deposit = await w.deposit();
    for (const version of [10, 3, 6]) await deliverEvent(eventOf(deposit.id, version), 1, ctx);
    await deliverEvent(eventOf('dep_other', 2), 1, ctx);
    const read = { deposits: w.table.deposits, deliveries: records, clock: w.clock };

    const answer = await deliveriesOf({ depositId: deposit.id }, read);
    const missing = deliveriesOf({ depositId: 'dep_none' }, read);

    expect(answer.now).toBe(new Date(w.clock.now()).toISOString());
    expect(answer.deliveries.map((d) => d.eventId)).toEqual([3, 6, 10].map((v) => `${deposit.id}.v${v}`));
    expect(answer.deliveries[0]).toMatchObject({
      type: 'deposit.done',
      state: 'delivered',
      attempts: 1,
      firstTriedAt: new Date(w.clock.now()).toISOString(),
      resends: 0,
    });
    await expect(missing).rejects.toMatchObject({ type: 'DEPOSIT_NOT_FOUND' });
  });

  it('resends the same event (its id is the webhook-id) to the notify queue, counted with who; an untried one is 404', async () => {
    const { w, records, ctx } = delivering([200]);
    const event = eventOf('dep_1', 6);
    await deliverEvent(event, 1, ctx);
    const events = new FakeEventQueue();
    const resending = { deliveries: records, events, clock: w.clock };

    const first = await resendEvent({ depositId: 'dep_1', eventId: event.id, who: 'ops-amira' }, resending);
    const second = await resendEvent({ depositId: 'dep_1', eventId: event.id, who: 'ops-ben' }, resending);
    const untried = resendEvent({ depositId: 'dep_1', eventId: 'dep_1.v7', who: 'ops-ben' }, resending);

    expect(first).toEqual({ operationID: 'dep_1', eventId: event.id, resent: true, resends: 1 });
    expect(second.resends).toBe(2);
    expect(events.published).toEqual([event, event]);
    expect((await records.get('dep_1', event.id))?.lastResend).toEqual({ by: 'ops-ben', at: w.clock.now() });
    await expect(untried).rejects.toMatchObject({ type: 'DELIVERY_NOT_FOUND' });
  });
});

describe("the console's numbers", () => {
  it('counts each bucket, spreads the creations over the bins, and times the done deposits step by step', async () => {
    const w = world();
    const start = w.clock.now();
    const at = (seconds: number) => start + seconds * 1000;
    const history = (steps: [string, number][]) =>
      steps.map(([step, seconds], index) => ({
        step: step as 'resolve-bank',
        status: index === steps.length - 1 ? ('done' as const) : ('initialized' as const),
        at: at(seconds),
      }));
    await w.deposit({
      id: 'dep_a',
      createdAt: at(0),
      status: 'done',
      step: 'completed',
      history: history([
        ['resolve-bank', 0],
        ['wait-cooldown', 1],
        ['transfer', 11],
        ['completed', 12],
      ]),
    });
    await w.deposit({
      id: 'dep_b',
      createdAt: at(60),
      status: 'done',
      step: 'completed',
      history: history([
        ['resolve-bank', 60],
        ['transfer', 63],
        ['completed', 64],
      ]),
    });
    await w.deposit({ id: 'dep_c', createdAt: at(3_000), status: 'initialized', step: 'wait-cooldown' });
    await w.deposit({
      id: 'dep_s',
      createdAt: at(30),
      status: 'done',
      step: 'completed',
      purpose: 'source',
      history: history([
        ['resolve-bank', 30],
        ['completed', 900],
      ]),
    });
    w.clock.set(at(3_600));
    const ctx = { times: fakeStatusTimes(w.table), byStatus: fakeStatusIndex(w.table), clock: w.clock };

    const stats = await depositStats({}, ctx);

    expect(stats.now).toBe(new Date(at(3_600)).toISOString());
    expect(stats.counts).toEqual({
      initialized: { count: 1, capped: false },
      user_input_required: { count: 0, capped: false },
      done: { count: 3, capped: false },
      failed: { count: 0, capped: false },
      outcome_unknown: { count: 0, capped: false },
    });
    // From the oldest deposit to now, in 24 bins of 150 s.
    expect(stats.overTime).toMatchObject({ from: new Date(start).toISOString(), binSeconds: 150 });
    expect(stats.overTime.bins).toHaveLength(24);
    expect(stats.overTime.bins[0]).toMatchObject({ done: 3, initialized: 0 });
    expect(stats.overTime.bins[20]).toMatchObject({ done: 0, initialized: 1 });
    // The source is no deposit: two done deposits, 12 s and 4 s in all.
    expect(stats.timeToDone).toEqual({
      deposits: 2,
      total: { medianSeconds: 4, p90Seconds: 12 },
      steps: [
        { step: 'resolve-bank', deposits: 2, medianSeconds: 1, p90Seconds: 3 },
        { step: 'wait-cooldown', deposits: 1, medianSeconds: 10, p90Seconds: 10 },
        { step: 'transfer', deposits: 2, medianSeconds: 1, p90Seconds: 1 },
      ],
    });
  });

  it('never times more done deposits than it counts, while deposits keep ending between its reads', async () => {
    // prepare: one deposit done, one that ends done right after the stats' first read of the table
    const w = world();
    const done = { status: 'done', step: 'completed' } as const;
    const now = w.clock.now();
    await w.deposit({
      id: 'dep_a',
      ...done,
      history: [
        { step: 'resolve-bank', status: 'initialized', at: now },
        { step: 'completed', status: 'done', at: now + 2_000 },
      ],
    });
    await w.deposit({ id: 'dep_b', status: 'initialized', step: 'transfer' });
    const times = fakeStatusTimes(w.table);
    const byStatus = fakeStatusIndex(w.table);
    let reads = 0;
    const thenEnds = async <T>(read: Promise<T>) => {
      const answer = await read;
      reads += 1;
      if (reads === 1) w.table.items.set('dep_b', { ...w.table.current('dep_b'), ...done });
      return answer;
    };
    const ctx = {
      times: {
        createdTimes: (...args: Parameters<typeof times.createdTimes>) =>
          thenEnds(times.createdTimes(...args)),
      },
      byStatus: {
        ...byStatus,
        page: (...args: Parameters<typeof byStatus.page>) => thenEnds(byStatus.page(...args)),
      },
      clock: w.clock,
    };

    // act
    const stats = await depositStats({}, ctx);

    // assert: the deposit that ended meanwhile is in the count, or in neither
    expect(stats.timeToDone.deposits).toBeLessThanOrEqual(stats.counts.done.count);
  });

  it('counts at a step and in a range as the list filters them', async () => {
    const w = world();
    await w.deposit({ id: 'dep_a', status: 'initialized', step: 'transfer' });
    await w.deposit({ id: 'dep_b', status: 'initialized', step: 'wait-cooldown' });
    const ctx = { times: fakeStatusTimes(w.table), byStatus: fakeStatusIndex(w.table), clock: w.clock };

    const atTransfer = await depositStats({ step: 'transfer' }, ctx);
    const before = await depositStats({ to: new Date(w.clock.now() - 60_000).toISOString() }, ctx);

    expect(atTransfer.counts.initialized.count).toBe(1);
    expect(atTransfer.timeToDone).toEqual({ deposits: 0, steps: [] });
    expect(before.counts.initialized.count).toBe(0);
  });
});
