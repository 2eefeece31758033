/**
 * Payment sources over the running stack: a source prepares a user's connection for deposits into a
 * wallet account (bank, beneficiary, cool-down) and stops before the transfer; a deposit afterwards
 * makes one provider call, its transfer (the local stack's journal of provider calls says which calls
 * went out); deposits started while a source cools down wait for
 * the source's own wake-up; concurrent sources and deposits create one beneficiary.
 */
import { describe, expect, it } from 'vitest';
import {
  cancelDeposit,
  cancelSource,
  depositWhen,
  listSources,
  localSchedules,
  otpAnswer,
  providerPath,
  readDeposit,
  sourceWhen,
  startDeposit,
  startSource,
  stepsOf,
  takeProviderCalls,
  webhookDeliveries,
} from '../support/deposits.ts';
import { createUser, eventually, sandboxUrl, stateOf, type TestUser } from '../support/sandbox.ts';

type Entry = { step: string; status: string; note?: string };
type Body = Record<string, unknown> & { status: string; updatedAt: string; history: Entry[] };

const ended = (body: Record<string, unknown>) => body.status === 'ready' || body.status === 'failed';

/** Starts a source and drives it to its end, answering every question the bank asks on the way. */
async function prepareSource(user: TestUser, walletAccountID?: string): Promise<Body> {
  const key = `source-${user.connectionID}`;
  const wallet = walletAccountID ? { walletAccountID } : {};
  const started = await startSource(user, wallet, key);
  expect(started.status).toBe(202);
  const id = String(started.body.sourceID);
  for (let questions = 0; questions < 6; questions += 1) {
    const now = (await sourceWhen(
      user,
      id,
      (s) => ended(s) || s.status === 'user_input_required',
      30_000,
    )) as Body;
    if (now.status !== 'user_input_required') return now;
    await startSource(user, { ...wallet, userInputs: otpAnswer(now) }, key);
    await sourceWhen(user, id, (s) => s.updatedAt !== now.updatedAt);
  }
  throw new Error(`source ${id} kept asking`);
}

/** Starts a deposit and drives it to its end, answering the question the bank may ask on its transfer. */
async function depositThrough(user: TestUser, amount: number, walletAccountID?: string) {
  const key = `deposit-${user.connectionID}-${amount}`;
  const request = { amount, ...(walletAccountID ? { walletAccountID } : {}) };
  const started = await startDeposit(user, request, key);
  const id = String(started.body.operationID);
  const now = await depositWhen(user, id, (d) => d.status !== 'initialized', 30_000);
  if (now.status !== 'user_input_required') return now;
  await startDeposit(user, { ...request, userInputs: otpAnswer(now) }, key);
  return depositWhen(user, id, undefined, 30_000);
}

/** `asksOnTransfer`: the bank asks a password before each transfer, which the caller answers. */
const banks = [
  { bankId: 'SANDBOX_BENEFICIARY', asks: false, coolsDown: false, beneficiary: true },
  { bankId: 'SANDBOX_FIRST_DETAILS', asks: false, coolsDown: false, beneficiary: true },
  { bankId: 'SANDBOX_NO_BENEFICIARY', asks: false, coolsDown: false, beneficiary: false },
  { bankId: 'SANDBOX_COOLDOWN_FAST', asks: false, coolsDown: true, beneficiary: true },
  { bankId: 'SANDBOX_COOLDOWN_LISTED', asks: false, coolsDown: true, beneficiary: true },
  { bankId: 'SANDBOX_OTP', asks: true, coolsDown: false, beneficiary: true, asksOnTransfer: true },
  { bankId: 'SANDBOX_OTP_READS', asks: true, coolsDown: false, beneficiary: true },
  // Hides the new beneficiary, and asks on the list: the look-up after the cool-down asks.
  { bankId: 'SANDBOX_COOLDOWN_OTP_LIST', asks: true, coolsDown: true, beneficiary: true },
  { bankId: 'SANDBOX_OTP_INLINE', asks: false, coolsDown: false, beneficiary: false, asksOnTransfer: true },
  {
    bankId: 'SANDBOX_OTP_TWO_QUESTIONS',
    asks: true,
    coolsDown: false,
    beneficiary: true,
    asksOnTransfer: true,
  },
  { bankId: 'SANDBOX_RECEIPT_REFERENCE', asks: false, coolsDown: false, beneficiary: true },
  { bankId: 'SANDBOX_SPARSE', asks: false, coolsDown: false, beneficiary: true },
  { bankId: 'SANDBOX_MASKED', asks: false, coolsDown: false, beneficiary: true },
  { bankId: 'SANDBOX_RATE_LIMITED', asks: false, coolsDown: false, beneficiary: true },
  { bankId: 'SANDBOX_KWD', asks: false, coolsDown: false, beneficiary: true, wallet: 'wallet-kwd' },
];

// Each test side by side with the others (a few at a time: the runner's maxConcurrency): each has a
// user of its own, and one after another the file was the longest of its project.
describe.concurrent('a payment source on every sandbox bank', () => {
  it.for(banks)(
    '$bankId: ready, then a deposit makes exactly one provider call, its transfer',
    async ({ bankId, asks, coolsDown, beneficiary, wallet, asksOnTransfer = false }, { expect }) => {
      // prepare: a bank that carries transfers out at once (the outcome is in the transfer's answer)
      const user = await createUser(bankId, { asyncDelaySeconds: 0 });

      // act: the source
      const source = await prepareSource(user, wallet);

      // assess: ready, through the password where the bank asks one, the cool-down where it has one
      expect(source).toMatchObject({ status: 'ready', success: true });
      expect(source.history.some((entry) => entry.status === 'user_input_required')).toBe(asks);
      expect(source.history.some((entry) => entry.status === 'cooling_down')).toBe(coolsDown);
      expect(source.history.some((entry) => entry.step === 'ensure-beneficiary')).toBe(beneficiary);
      expect((await stateOf(user)).transfers).toEqual([]);

      // act: a deposit afterwards
      await takeProviderCalls(user);
      const done = await depositThrough(user, 20, wallet);
      const calls = await takeProviderCalls(user);

      // assess: the transfer is the one call (sent again only with the caller's answer to the
      // password the bank asks before each transfer); no wait, one transfer at the bank
      expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
      const transferPath = providerPath(beneficiary ? 'transferCreate' : 'transferAutoflow');
      expect(calls).toEqual(asksOnTransfer ? [transferPath, transferPath] : [transferPath]);
      const history = done.history as Entry[];
      expect(history.some((entry) => entry.status === 'user_input_required')).toBe(asksOnTransfer);
      // The source left the bank and the beneficiary on record: the deposit starts at the transfer.
      expect(history[0]).toMatchObject({
        step: 'transfer',
        note: beneficiary
          ? expect.stringMatching(/^bank and beneficiary remembered/)
          : expect.stringMatching(/^bank remembered/),
      });
      expect(history.map((entry) => entry.step)).not.toContain('wait-cooldown');
      expect(history.map((entry) => entry.step)).not.toContain('resolve-bank');
      expect(history.map((entry) => entry.step)).not.toContain('ensure-beneficiary');
      expect((await stateOf(user)).transfers).toHaveLength(1);
    },
  );

  it('covers the whole catalog (SANDBOX_COOLDOWN, a day long, in test/clock/day-long-cooldown.test.ts)', async () => {
    const response = await fetch(`${sandboxUrl}/sandbox/banks`);
    const { banks: catalog } = (await response.json()) as { banks: { bankId: string }[] };

    const covered = [...banks.map((bank) => bank.bankId), 'SANDBOX_COOLDOWN'];
    expect(covered.sort()).toEqual(catalog.map((bank) => bank.bankId).sort());
  });

  it('a source at a bank that takes no beneficiaries is ready at once: one call reads the bank, nothing is registered or waited for', async () => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');

    // act
    const source = await prepareSource(user);
    const calls = await takeProviderCalls(user);

    // assess
    expect(source.status).toBe('ready');
    expect(calls).toEqual([providerPath('metadata')]);
    expect(stepsOf(source)).toEqual(['resolve-bank', 'transfer', 'completed']);
  });

  it('at a bank that carries the transfer out later: the transfer, then reads of its outcome until done', async () => {
    // prepare
    // the bank carries transfers out 2 s after accepting them (its reads answer at once)
    const user = await createUser('SANDBOX_BENEFICIARY', { asyncDelaySeconds: 0, transferDelaySeconds: 2 });
    expect((await prepareSource(user)).status).toBe('ready');
    await takeProviderCalls(user);

    // act
    const done = await depositThrough(user, 25);
    const calls = await takeProviderCalls(user);

    // assess: one transfer; every other call reads that transfer's operation (in v2, which sends no
    // `sync`, once the provider's hold has ended without the outcome)
    expect(done.status).toBe('done');
    expect(calls[0]).toBe(providerPath('transferCreate'));
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.slice(1).every((path) => path === providerPath('operationGet'))).toBe(true);
  }, 90_000);

  it('SANDBOX_COOLDOWN (24 hours): cooling down until the next day, and a deposit started then waits for its wake-up', async () => {
    // prepare
    const user = await createUser('SANDBOX_COOLDOWN');
    const key = 'source-24h';
    const started = await startSource(user, {}, key);
    const id = String(started.body.sourceID);

    // act
    const cooling = (await sourceWhen(user, id, (s) => s.status === 'cooling_down')) as Body;
    const deposit = await startDeposit(user, { amount: 30 });
    const depositId = String(deposit.body.operationID);
    const waiting = await depositWhen(user, depositId, (d) =>
      (d.history as Entry[]).some((entry) =>
        entry.note?.startsWith("waiting for the payment source's wake-up"),
      ),
    );

    // assess: ready a day later; the deposit armed nothing of its own, the source's wake-up is armed
    const readyAt = Date.parse(String(cooling.readyAt));
    expect(readyAt - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    expect(waiting.status).toBe('initialized');
    const { schedules } = await localSchedules();
    expect(schedules.filter((schedule) => schedule.Name.startsWith(id))).toHaveLength(1);
    expect(schedules.filter((schedule) => schedule.Name.startsWith(depositId))).toEqual([]);
    const listed = await listSources(user);
    expect((listed.body.sources as { sourceID: string }[]).map((s) => s.sourceID)).toEqual([id]);
  });
});

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

  it('a deposit started while the source cools down follows its wake-up, arms none, and is done after it', async () => {
    // prepare: a bank that lists the new beneficiary at once and approves it 3.6 s later
    const user = await createUser('SANDBOX_COOLDOWN_LISTED');
    const key = 'source-listed';
    const started = await startSource(user, {}, key);
    const id = String(started.body.sourceID);
    await sourceWhen(user, id, (s) => s.status === 'cooling_down');

    // act
    const deposit = await startDeposit(user, { amount: 35 });
    const depositId = String(deposit.body.operationID);
    const done = await depositWhen(user, depositId, undefined, 30_000);
    const source = (await sourceWhen(user, id)) as Body;

    // assess
    expect(source.status).toBe('ready');
    expect(done.status).toBe('done');
    expect((done.history as Entry[]).map((entry) => entry.step)).toContain('wait-cooldown');
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
