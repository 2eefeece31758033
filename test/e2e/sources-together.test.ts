/**
 * Payment sources and deposits together over the running stack: deposits started while a source
 * cools down wait for the source's own wake-up (or arm their own when it is cancelled); the owner's
 * cancel keeps to its kind; concurrent sources and deposits on one connection create one beneficiary;
 * the caller hears the source's events. (The catalog of banks is `sources.test.ts`.)
 */
import { describe, expect, it } from 'vitest';
import {
  cancelDeposit,
  cancelSource,
  depositWhen,
  localSchedules,
  readDeposit,
  sourceWhen,
  startDeposit,
  startSource,
  webhookDeliveries,
} from '../support/deposits.ts';
import { createUser, eventually, stateOf } from '../support/sandbox.ts';
import { type Body, type Entry, ended, prepareSource } from '../support/sources.ts';

// Side by side: each test has a user of its own.
describe.concurrent('sources and deposits together', () => {
  it('a source cancelled while it cools down hands its follower back: the deposit arms its own wake-up for the same instant', async () => {
    // prepare: a day-long cool-down, and a deposit following the source's wake-up
    const user = await createUser('SANDBOX_COOLDOWN');
    const started = await startSource(user, {}, 'cancelled-source');
    const id = String(started.body.sourceID);
    const cooling = (await sourceWhen(user, id, (s) => s.status === 'cooling_down')) as Body;
    const deposit = await startDeposit(user, { amount: 30 });
    const depositId = String(deposit.body.operationID);
    await depositWhen(user, depositId, (d) =>
      (d.history as Entry[]).some((entry) =>
        entry.note?.startsWith("waiting for the payment source's wake-up"),
      ),
    );

    // act
    const cancelled = await cancelSource(user, id);
    const own = await eventually(async () => {
      const { schedules } = await localSchedules();
      return schedules.find((schedule) => schedule.Name.startsWith(depositId));
    });

    // assess: the source is cancelled, its schedule gone; the deposit waits on its own for the instant
    expect(cancelled).toMatchObject({ status: 200, body: { status: 'failed', type: 'CANCELLED' } });
    const { schedules } = await localSchedules();
    expect(schedules.filter((schedule) => schedule.Name.startsWith(id))).toEqual([]);
    const readyAt = Math.floor(Date.parse(String(cooling.readyAt)) / 1000);
    expect(own.Name).toMatch(new RegExp(`-${readyAt}$`));
    expect((await readDeposit(user, depositId)).body.status).toBe('initialized');
  });

  it('a deposit started while the source cools down follows its wake-up, arms none, and transfers only after it', async () => {
    // prepare: a bank that lists the new beneficiary at once and approves it 3.6 s later
    const user = await createUser('SANDBOX_COOLDOWN_LISTED');
    const key = 'source-listed';
    const started = await startSource(user, {}, key);
    const id = String(started.body.sourceID);
    const cooling = (await sourceWhen(user, id, (s) => s.status === 'cooling_down')) as Body;
    const readyAt = Date.parse(String(cooling.readyAt));

    // act
    const deposit = await startDeposit(user, { amount: 35 });
    const depositId = String(deposit.body.operationID);
    const done = await depositWhen(user, depositId, undefined, 30_000);
    const source = (await sourceWhen(user, id)) as Body;

    // assess: never a transfer before the cool-down's end, and never a wake-up of the deposit's own.
    // Whether it waited (wait-cooldown) is the machine's pace: one slow enough to take the 3.6 s on
    // its first steps reaches the beneficiary once the bank allows it; the clock project proves the
    // wait itself, in test time (test/clock/day-long-cooldown.test.ts).
    expect(source.status).toBe('ready');
    expect(done.status).toBe('done');
    const history = done.history as (Entry & { at: string })[];
    const transferredAt = Date.parse(history.find((entry) => entry.step === 'transfer')?.at ?? '');
    expect(transferredAt).toBeGreaterThanOrEqual(readyAt);
    const { schedules, fired } = await localSchedules();
    const own = [...schedules.map((schedule) => schedule.Name), ...fired.map((firing) => firing.name)];
    expect(own.filter((name) => name.startsWith(depositId))).toEqual([]);
    expect(own.some((name) => name.startsWith(id))).toBe(true);
    expect((await stateOf(user)).transfers).toHaveLength(1);
  });

  it("the owner's cancel keeps to its kind: a ready source is not cancellable, a deposit is no source, a source no deposit", async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const ready = await prepareSource(user);
    const deposit = await startDeposit(user, { amount: 12 });
    const depositId = String(deposit.body.operationID);

    // act
    const refusals = await Promise.all([
      cancelSource(user, String(ready.sourceID)),
      cancelSource(user, depositId),
      cancelDeposit(user, String(ready.sourceID)),
    ]);

    // assess
    expect(refusals.map((refusal) => [refusal.status, refusal.body.type])).toEqual([
      [409, 'SOURCE_NOT_CANCELLABLE'],
      [404, 'SOURCE_NOT_FOUND'],
      [404, 'DEPOSIT_NOT_FOUND'],
    ]);
    expect((await sourceWhen(user, String(ready.sourceID))).status).toBe('ready');
  });

  it('concurrent sources and deposits on one connection create one beneficiary, and all end well', async () => {
    // prepare
    const user = await createUser('SANDBOX_COOLDOWN_FAST');

    // act: two sources and three deposits at once
    const [first, second, ...deposits] = await Promise.all([
      startSource(user, {}, 'concurrent-1'),
      startSource(user, {}, 'concurrent-2'),
      startDeposit(user, { amount: 21 }),
      startDeposit(user, { amount: 22 }),
      startDeposit(user, { amount: 23 }),
    ]);
    const sources = await Promise.all(
      [first, second].map((started) => sourceWhen(user, String(started?.body.sourceID), ended, 40_000)),
    );
    const done = await Promise.all(
      deposits.map((started) => depositWhen(user, String(started.body.operationID), undefined, 40_000)),
    );

    // assess
    expect(sources.map((source) => source.status)).toEqual(['ready', 'ready']);
    expect(done.map((deposit) => deposit.status)).toEqual(['done', 'done', 'done']);
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });
    expect(listed.body.beneficiaries).toHaveLength(1);
    expect((await stateOf(user)).transfers).toHaveLength(3);
  });

  it('its caller hears source.cooling_down and source.ready, signed, naming the source', async () => {
    const user = await createUser('SANDBOX_COOLDOWN_FAST');
    const started = await startSource(user, {}, 'heard');
    const id = String(started.body.sourceID);
    await sourceWhen(user, id, undefined, 30_000);

    const heard = await eventually(async () => {
      const { deliveries } = await webhookDeliveries(id);
      return deliveries.some((event) => event.type === 'source.ready') ? deliveries : undefined;
    });

    expect(heard.map((event) => event.type)).toEqual(['source.cooling_down', 'source.ready']);
    expect(heard.every((event) => event.verified && event.data.sourceId === id)).toBe(true);
    expect(heard[0]?.data).toMatchObject({ status: 'cooling_down', readyAt: expect.any(String) });
    expect(heard[1]?.data).toMatchObject({ status: 'ready' });
  });
});
