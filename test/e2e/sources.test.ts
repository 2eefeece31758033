/**
 * Payment sources over the running stack: a source prepares a user's connection for deposits into a
 * wallet account (bank, beneficiary, cool-down) and stops before the transfer; a deposit afterwards
 * makes one provider call, its transfer (the local stack's journal of provider calls says which calls
 * went out), on every bank of the catalog. Sources and deposits together: `sources-together.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import {
  depositWhen,
  listSources,
  localSchedules,
  providerPath,
  sourceWhen,
  startDeposit,
  startSource,
  stepsOf,
  takeProviderCalls,
} from '../support/deposits.ts';
import { createUser, sandboxUrl, stateOf } from '../support/sandbox.ts';
import { type Body, depositThrough, type Entry, prepareSource } from '../support/sources.ts';

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

describe('a payment source on every sandbox bank', () => {
  // Side by side (five at a time, vitest's default): each bank's user is its own, and one after the
  // other they made this the v2 pass's longest file (40 s, most of it the cool-downs waited out).
  it.concurrent.for(banks)(
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
