/** The ensure-beneficiary step through the fakes of its ports: our record, the claim, the list, the creation. */
import { describe, expect, it } from 'vitest';
import type { BankFacts, BeneficiaryClaim, Deposit } from '#shared/deposits/model/deposit';
import { depositView } from '#shared/deposits/model/views';
import { cancelDeposit } from '#shared/deposits/requests/cancel';
import { ensureBeneficiary, LOOK_UP_AGAIN_MS } from '#shared/deposits/steps/ensure-beneficiary';
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

const acme = { name: 'Acme Wallet LLC', accountNumber: '0331234567890123456' };
const claimKey = `${ownerKey}#wallet-aed`;

interface Listed {
  id: string;
  name?: string;
  accountNumber?: string;
  status?: 'approved' | 'pending';
}

/** A listBeneficiaries answer; each entry is the wallet's beneficiary unless it says otherwise. */
function listed(...beneficiaries: Listed[]) {
  return answers.done({
    jobID: 'j',
    success: true,
    status: 'done',
    beneficiaries: beneficiaries.map((beneficiary) => ({
      name: acme.name,
      accountNumber: acme.accountNumber,
      type: 'local',
      status: 'approved',
      ...beneficiary,
    })),
  });
}

/** A createBeneficiary answer, with the bank's reference when given. */
function created(reference?: string) {
  return answers.done({ jobID: 'j', success: true, status: 'done', ...(reference ? { reference } : {}) });
}

/** A deposit that resolve-bank sent to ensure-beneficiary. */
function atStep(w: World, bank: BankFacts = banks.beneficiary, overrides: Partial<Deposit> = {}) {
  return w.deposit({ step: 'ensure-beneficiary', bank, ...overrides });
}

function claimOf(w: World, overrides: Partial<BeneficiaryClaim>) {
  const claim: BeneficiaryClaim = {
    ownerKey,
    walletAccountId: 'wallet-aed',
    state: 'creating',
    depositId: 'dep_other',
    claimedAt: w.clock.now(),
    ...overrides,
  };
  w.table.claimItems.set(claimKey, claim);
  return claim;
}

function beneficiaryOf(w: World) {
  return w.wallets.find('wallet-aed')?.beneficiary;
}

/** The caller's OTP answer, as sealed on the deposit and sent back to the bank. */
const answered = question.map((input) => ({ ...input, answer: '123456' }));

/**
 * A deposit `id` at ensure-beneficiary with the caller's answers to the creation's question (asked
 * as `op-q`, a minute left), holding the creation claim until then.
 */
async function answering(w: World, bank: BankFacts, id = 'dep_answering') {
  const pendingInput = {
    providerOperationId: 'op-q',
    userInputs: question,
    expiresAt: w.clock.now() + 60_000,
  };
  const deposit = await atStep(w, bank, {
    id,
    pendingInput,
    sealedAnswers: await w.vault.seal('answers', id, answered),
  });
  claimOf(w, { depositId: deposit.id, claimedAt: pendingInput.expiresAt });
  return deposit;
}

/** Runs the step for the deposit's look-up, at the time it is armed for. */
async function lookUpWhenDue(
  w: World,
  depositId: string,
  ctx: ReturnType<World['contexts']['ensureBeneficiary']>,
) {
  const waiting = w.table.current(depositId);
  w.clock.set(Math.max(w.clock.now(), waiting.beneficiaryWork?.lookupAt ?? 0));
  await ensureBeneficiary(waiting, ctx);
}

describe('ensure-beneficiary', () => {
  describe('our record says the beneficiary was created', () => {
    it('uses it without calling the provider, and waits out the cool-down still running', async () => {
      // prepare
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w, banks.coolDown);
      const cooldownUntil = w.clock.now() + 1_800_000;
      const claim = claimOf(w, { state: 'created', beneficiaryId: 'ben-1', cooldownUntil, used: true });

      // act
      await ensureBeneficiary(deposit, ctx);

      // assess
      expect(w.provider.calls).toEqual([]);
      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'initialized',
        step: 'wait-cooldown',
        version: 1,
        beneficiaryId: 'ben-1',
        cooldownUntil,
        beneficiaryWork: { sendDetails: false },
      });
      expect(w.events.published).toEqual([
        expect.objectContaining({
          id: `${deposit.id}.v1`,
          type: 'deposit.cooling_down',
          data: {
            ...eventFields(deposit, w.clock.now()),
            status: 'initialized',
            step: 'wait-cooldown',
            version: 1,
            resumesAt: new Date(cooldownUntil).toISOString(),
          },
        }),
      ]);
      expect(ctx.queues.sent).toEqual([
        {
          message: { depositId: deposit.id, step: 'wait-cooldown', version: 1, kind: 'run' },
          delaySeconds: 0,
        },
      ]);
      expect(ctx.scheduler.schedules.size).toBe(0);
      expect(w.table.claimItems.get(claimKey)).toEqual(claim);
    });

    it.for([
      { label: 'a cool-down that is over', cooldownUntil: -1, used: false, details: true },
      { label: 'no cool-down at all', cooldownUntil: undefined, used: true, details: false },
    ])(
      'goes straight to the transfer after $label; details only while never used',
      async ({ cooldownUntil, used, details }) => {
        const w = world();
        const ctx = w.contexts.ensureBeneficiary();
        const deposit = await atStep(w, banks.coolDown);
        claimOf(w, {
          state: 'created',
          beneficiaryId: 'ben-1',
          used,
          ...(cooldownUntil === undefined ? {} : { cooldownUntil: w.clock.now() + cooldownUntil }),
        });

        await ensureBeneficiary(deposit, ctx);

        expect(w.provider.calls).toEqual([]);
        expect(w.table.current(deposit.id)).toMatchObject({
          step: 'transfer',
          version: 1,
          beneficiaryId: 'ben-1',
          beneficiaryWork: { sendDetails: details },
        });
        expect(w.events.published).toEqual([]);
        expect(ctx.queues.sent.map((sent) => sent.message)).toEqual([
          { depositId: deposit.id, step: 'transfer', version: 1, kind: 'run' },
        ]);
      },
    );
  });

  describe('the creation claim', () => {
    it('sleeps, one recorded wake-up on its own queue, while another deposit holds a live claim', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      // Exactly as old as the stale limit (the stall time and the margin): still live.
      const claim = claimOf(w, {
        claimedAt: w.clock.now() - settings.stallAfterMs - settings.claimStaleMs,
      });

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.calls).toEqual([]);
      expect(ctx.queues.sent).toEqual([
        {
          message: { depositId: deposit.id, step: 'ensure-beneficiary', version: 1, kind: 'run' },
          delaySeconds: 1,
        },
      ]);
      expect(w.table.writes).toHaveLength(1);
      expect(w.table.current(deposit.id)).toMatchObject({
        version: 1,
        beneficiaryWork: { sleepsUntil: w.clock.now() + 1_000, claimWaits: 1 },
        checkAt: w.clock.now() + 1_000 + settings.stallAfterMs,
      });
      expect(w.table.claimItems.get(claimKey)).toEqual(claim);
      expect(w.table.leaseItems.size).toBe(0);
    });

    // The follower looks again after as long as the claim has gone unrefreshed, and a second, up to its
    // staleness: each claim starts the growth over, whatever the follower waited for those before.
    const claimLife = settings.stallAfterMs + settings.claimStaleMs;
    it.each([
      {
        case: 'a holder just past its own time (its question expired), after many waits',
        waits: 9,
        ageMs: 500,
        sleepMs: 1_500,
      },
      { case: 'a holder unrefreshed for 10 s', waits: 0, ageMs: 10_000, sleepMs: 11_000 },
      {
        case: 'a holder near the end of its life: until it goes stale',
        waits: 3,
        ageMs: claimLife - 2_000,
        sleepMs: 3_000,
      },
    ])('sleeps as long as the claim has gone unrefreshed: $case', async ({ waits, ageMs, sleepMs }) => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w, banks.beneficiary, { beneficiaryWork: { claimWaits: waits } });
      claimOf(w, { claimedAt: w.clock.now() - ageMs });

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.calls).toEqual([]);
      expect(w.table.current(deposit.id).beneficiaryWork).toEqual({
        sleepsUntil: w.clock.now() + sleepMs,
        claimWaits: waits + 1,
      });
    });

    it('takes over a stale claim (its holder died) and creates the beneficiary', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      // Not refreshed through the stall time and the margin: its holder did not run when re-driven.
      claimOf(w, { claimedAt: w.clock.now() - settings.stallAfterMs - settings.claimStaleMs - 1 });
      w.provider
        .answer('listBeneficiaries', listed(), listed({ id: 'ben-1' }))
        .answer('createBeneficiary', created('ref-1'));

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.table.claimItems.get(claimKey)).toMatchObject({
        state: 'created',
        depositId: deposit.id,
        beneficiaryId: 'ben-1',
      });
      expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-1' });
    });

    it('elects one creator among the deposits of one connection: one creation only', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const first = await atStep(w);
      const second = await atStep(w);
      let answerCreation: (value: unknown) => void = () => {};
      const creation = new Promise((resolve) => {
        answerCreation = resolve;
      });
      w.provider
        .answer('listBeneficiaries', listed(), listed({ id: 'ben-1' }))
        .answer('createBeneficiary', creation);

      // The first deposit is inside its creation call when the second one runs.
      const firstRun = ensureBeneficiary(first, ctx);
      for (let turn = 0; turn < 20 && w.provider.callsOf('createBeneficiary').length === 0; turn += 1) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      await ensureBeneficiary(second, ctx);
      expect(ctx.queues.sent.map((sent) => [sent.message.depositId, sent.message.step])).toEqual([
        [second.id, 'ensure-beneficiary'],
      ]);
      expect(w.table.current(second.id).version).toBe(1);

      answerCreation(created('ref-1'));
      await firstRun;
      // The second wakes after its short sleep, and finds the beneficiary created.
      w.clock.advance(1_000);
      await ensureBeneficiary(w.table.current(second.id), ctx);

      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.provider.callsOf('listBeneficiaries')).toHaveLength(2);
      for (const id of [first.id, second.id]) {
        expect(w.table.current(id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-1' });
      }
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', depositId: first.id });
    });
  });

  describe('the list first, at a bank that lists new beneficiaries', () => {
    it('uses an approved match by account number, without a cool-down', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w, banks.coolDown);
      const now = w.clock.now();
      w.provider.answer(
        'listBeneficiaries',
        listed(
          { id: 'other-account', accountNumber: '999' },
          { id: 'other-name', name: 'Someone Else', accountNumber: '0331234567890999999' },
          { id: 'ben-9', status: 'approved' },
        ),
      );

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.callsOf('listBeneficiaries')).toEqual([[credentials, undefined]]);
      expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
      expect(w.table.claimItems.get(claimKey)).toEqual({
        ownerKey,
        walletAccountId: 'wallet-aed',
        state: 'created',
        depositId: deposit.id,
        claimedAt: now,
        beneficiaryId: 'ben-9',
        cooldownUntil: now,
      });
      expect(w.table.current(deposit.id)).toMatchObject({
        step: 'transfer',
        beneficiaryId: 'ben-9',
        cooldownUntil: now,
        beneficiaryWork: { sendDetails: true },
      });
      expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['transfer']);
      expect(w.events.published).toEqual([]);
      // The call's lease, handed to the transfer with the move.
      expect([...w.table.leaseItems.values()].map((held) => held.holder)).toEqual([
        w.table.current(deposit.id).leaseHeld,
      ]);
    });

    it("waits the bank's cool-down after a pending match", async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w, banks.coolDown);
      const cooldownUntil = w.clock.now() + banks.coolDown.coolDownMs;
      w.provider.answer('listBeneficiaries', listed({ id: 'ben-9', status: 'pending' }));

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
      expect(w.table.claimItems.get(claimKey)).toMatchObject({
        state: 'created',
        beneficiaryId: 'ben-9',
        cooldownUntil,
      });
      expect(w.table.current(deposit.id)).toMatchObject({ step: 'wait-cooldown', cooldownUntil });
      expect(w.events.types()).toEqual(['deposit.cooling_down']);
      expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['wait-cooldown']);
    });

    it('creates the beneficiary when nothing matches, finds its id in the list, and starts its cool-down', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w, banks.coolDown);
      const cooldownUntil = w.clock.now() + banks.coolDown.coolDownMs;
      // The creation's reference is not the beneficiary's id: the list says which id it has.
      w.provider
        .answer(
          'listBeneficiaries',
          listed({ id: 'other-account', accountNumber: '999' }),
          listed({ id: 'other-account', accountNumber: '999' }, { id: 'ben-1', status: 'pending' }),
        )
        .answer('createBeneficiary', created('ref-77'));

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.callsOf('createBeneficiary')).toEqual([[credentials, beneficiaryOf(w), undefined]]);
      expect(w.provider.callsOf('listBeneficiaries')).toEqual([[credentials, undefined], [credentials]]);
      expect(w.table.claimItems.get(claimKey)).toMatchObject({
        state: 'created',
        depositId: deposit.id,
        beneficiaryId: 'ben-1',
        cooldownUntil,
      });
      expect(w.table.current(deposit.id)).toMatchObject({
        step: 'wait-cooldown',
        beneficiaryId: 'ben-1',
        cooldownUntil,
        beneficiaryWork: { sendDetails: true },
      });
      expect(w.table.leaseItems.size).toBe(0);
    });
  });

  it('creates at once, without a list, at a bank that hides new beneficiaries; looks its id up after the cool-down', async () => {
    const w = world();
    const ctx = w.contexts.ensureBeneficiary();
    const deposit = await atStep(w, banks.hiddenCoolDown);
    const lookupAt = w.clock.now() + banks.hiddenCoolDown.coolDownMs + 1_000;
    const resumesAt = new Date(lookupAt).toISOString();
    w.provider
      .answer('createBeneficiary', created('ref-1'))
      .answer('listBeneficiaries', listed({ id: 'other', accountNumber: '999' }, { id: 'ben-4' }));

    await ensureBeneficiary(deposit, ctx);

    expect(w.provider.callsOf('listBeneficiaries')).toEqual([]);
    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    // The caller hears the deposit cools down, until the look-up; the claim is held until then.
    const waiting = w.table.current(deposit.id);
    expect(waiting).toMatchObject({
      step: 'wait-cooldown',
      cooldownUntil: lookupAt,
      beneficiaryWork: { lookupAt: lookupAt },
    });
    expect(waiting.beneficiaryId).toBeUndefined();
    expect(depositView(waiting, w.clock.now()).resumesAt).toBe(resumesAt);
    expect(w.events.published).toEqual([
      expect.objectContaining({ type: 'deposit.cooling_down', data: expect.objectContaining({ resumesAt }) }),
    ]);
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', lookupAt });
    expect(w.table.claimItems.get(claimKey)?.beneficiaryId).toBeUndefined();
    expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['wait-cooldown']);

    w.clock.set(lookupAt);
    await ensureBeneficiary(waiting, ctx);

    expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
    expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', beneficiaryId: 'ben-4' });
    expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-4' });
  });

  describe('the bank says the beneficiary exists', () => {
    it('at a bank that hides new ones: waits the cool-down, then looks it up', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w, banks.hiddenCoolDown);
      const lookupAt = w.clock.now() + banks.hiddenCoolDown.coolDownMs + 1_000;
      w.provider.answer('createBeneficiary', answers.refusal('BENEFICIARY_ALREADY_EXISTS'));

      await ensureBeneficiary(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'initialized',
        step: 'wait-cooldown',
        version: 1,
        cooldownUntil: lookupAt,
        beneficiaryWork: { lookupAt: lookupAt },
      });
      expect(w.table.claimItems.get(claimKey)).toMatchObject({
        state: 'created',
        depositId: deposit.id,
        lookupAt,
      });
      expect(ctx.queues.sent).toEqual([
        {
          message: { depositId: deposit.id, step: 'wait-cooldown', version: 1, kind: 'run' },
          delaySeconds: 0,
        },
      ]);
      // The caller hears that the deposit waits for the bank's cool-down, and until when.
      expect(w.events.types()).toEqual(['deposit.cooling_down']);
      expect(w.table.leaseItems.size).toBe(0);

      // The record of the creation keeps another deposit from creating it, long after the stale
      // limit: it sleeps until the look-up, with one schedule.
      const other = await atStep(w, banks.hiddenCoolDown);
      w.clock.advance(settings.claimStaleMs * 10);
      await ensureBeneficiary(other, ctx);
      expect(
        [...ctx.scheduler.schedules.values()].map((schedule) => [schedule.message.depositId, schedule.at]),
      ).toEqual([[other.id, lookupAt + 1_000]]);
      expect(w.provider.calls).toHaveLength(1);
    });

    it.for([
      { label: 'a delayed message', waitMs: 600_000, delaySeconds: 600, scheduled: false },
      { label: 'a schedule', waitMs: 7_200_000, delaySeconds: undefined, scheduled: true },
    ])(
      'woken before the look-up time: re-arms the wake-up as $label and does nothing else',
      async ({ waitMs, delaySeconds, scheduled }) => {
        const w = world();
        const ctx = w.contexts.ensureBeneficiary();
        const lookupAt = w.clock.now() + waitMs;
        const deposit = await atStep(w, banks.hiddenCoolDown, { beneficiaryWork: { lookupAt: lookupAt } });
        const claim = claimOf(w, { depositId: deposit.id, claimedAt: lookupAt });

        await ensureBeneficiary(deposit, ctx);

        const message = { depositId: deposit.id, step: 'ensure-beneficiary', version: 0, kind: 'run' };
        expect(w.provider.calls).toEqual([]);
        expect(w.table.writes).toEqual([]);
        expect(w.table.claimItems.get(claimKey)).toEqual(claim);
        expect(ctx.queues.sent).toEqual(scheduled ? [] : [{ message, delaySeconds }]);
        expect([...ctx.scheduler.schedules.values()]).toEqual(scheduled ? [{ at: lookupAt, message }] : []);
      },
    );

    // The claim records the creation before the deposit's own write records its wait: a run that died
    // between the two (or whose write was refused) leaves the wait on the claim alone. The next run
    // records it, as the lost write would have: else its check time missed the wait (the sweeper
    // re-drove it again and again, each run only re-arming the wake-up) and its caller never heard
    // of the cool-down. (Both cases failed before: nothing was written.)
    it.for([
      {
        label: 'a bank that hides new ones: it cools down until the look-up, and its caller hears it',
        bank: banks.hiddenCoolDown,
        waitMs: banks.hiddenCoolDown.coolDownMs + 1_000,
        step: 'wait-cooldown',
      },
      {
        label: 'a bank that lists new ones: its look-up time is recorded, one wake-up armed',
        bank: banks.beneficiary,
        waitMs: LOOK_UP_AGAIN_MS,
        step: 'ensure-beneficiary',
      },
    ])('its creation on the claim but its own wait lost, at $label', async ({ bank, waitMs, step }) => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const lookupAt = w.clock.now() + waitMs;
      const deposit = await atStep(w, bank);
      const claim = claimOf(w, { depositId: deposit.id, state: 'created', claimedAt: lookupAt, lookupAt });

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.calls).toEqual([]);
      expect(w.table.claimItems.get(claimKey)).toEqual(claim);
      const waiting = w.table.current(deposit.id);
      expect(waiting).toMatchObject({
        step,
        version: 1,
        beneficiaryWork: { lookupAt },
        checkAt: lookupAt + settings.stallAfterMs,
      });
      const coolsDown = step === 'wait-cooldown';
      expect(waiting.cooldownUntil).toBe(coolsDown ? lookupAt : undefined);
      expect(w.events.types()).toEqual(coolsDown ? ['deposit.cooling_down'] : []);
      if (coolsDown)
        expect(depositView(waiting, w.clock.now()).resumesAt).toBe(new Date(lookupAt).toISOString());
      expect(w.table.leaseItems.size).toBe(0);
    });

    it('after the look-up time: lists, and uses the match', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const lookupAt = w.clock.now() - 1;
      const deposit = await atStep(w, banks.hiddenCoolDown, { beneficiaryWork: { lookupAt: lookupAt } });
      claimOf(w, { depositId: deposit.id, claimedAt: lookupAt });
      w.provider.answer('listBeneficiaries', listed({ id: 'ben-9', status: 'approved' }));

      await ensureBeneficiary(deposit, ctx);

      expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
      expect(w.table.claimItems.get(claimKey)).toMatchObject({
        state: 'created',
        depositId: deposit.id,
        beneficiaryId: 'ben-9',
      });
      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-9' });
      expect(after.beneficiaryWork?.lookupAt).toBeUndefined();
      expect(ctx.queues.sent.map((sent) => sent.message.step)).toEqual(['transfer']);
    });

    it('after the look-up time, still not listed: fails BENEFICIARY_UNRESOLVED and frees the claim', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const lookupAt = w.clock.now() - 1;
      const deposit = await atStep(w, banks.hiddenCoolDown, { beneficiaryWork: { lookupAt: lookupAt } });
      claimOf(w, { depositId: deposit.id, claimedAt: lookupAt });
      w.provider
        .answer('listBeneficiaries', listed())
        .answer('createBeneficiary', answers.refusal('BENEFICIARY_ALREADY_EXISTS'));

      await ensureBeneficiary(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'failed',
        step: 'completed',
        failure: { type: 'BENEFICIARY_UNRESOLVED' },
      });
      // Freed: claimable at once, what fitted before its creation kept for the next holder.
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'creating', claimedAt: 0 });
      expect(w.table.leaseItems.size).toBe(0);
      expect(ctx.scheduler.schedules.size).toBe(0);
      expect(w.events.types()).toEqual(['deposit.failed']);
    });

    it('at a bank that lists new ones: fails BENEFICIARY_UNRESOLVED at once', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w, banks.coolDown);
      w.provider
        .answer('listBeneficiaries', listed())
        .answer('createBeneficiary', answers.refusal('BENEFICIARY_ALREADY_EXISTS'));

      await ensureBeneficiary(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'failed',
        failure: { type: 'BENEFICIARY_UNRESOLVED' },
      });
      expect(w.table.current(deposit.id).beneficiaryWork?.lookupAt).toBeUndefined();
      expect(ctx.scheduler.schedules.size).toBe(0);
      expect(ctx.queues.sent).toEqual([]);
      // Freed: claimable at once, what fitted before its creation kept for the next holder.
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'creating', claimedAt: 0 });
    });
  });

  describe('a question from the bank', () => {
    it('waits for the caller: the question kept, the input lease held, the expiry armed, the claim fresh', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      const expiresAt = w.clock.now() + settings.inputTtlMs;
      w.provider.answer('listBeneficiaries', listed()).answer('createBeneficiary', answers.question('op-q'));

      await ensureBeneficiary(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'user_input_required',
        step: 'ensure-beneficiary',
        version: 1,
        pendingInput: { providerOperationId: 'op-q', userInputs: asked, expiresAt },
      });
      expect(w.table.claimItems.get(claimKey)).toMatchObject({
        state: 'creating',
        depositId: deposit.id,
        claimedAt: expiresAt,
      });
      expect(w.table.leaseItems.get(ownerKey)).toEqual({ holder: `${deposit.id}#own`, until: expiresAt });
      expect(ctx.queues.sent).toEqual([
        {
          message: { depositId: deposit.id, step: 'ensure-beneficiary', version: 1, kind: 'expire-input' },
          delaySeconds: settings.inputTtlMs / 1000,
        },
      ]);
      expect(w.events.published).toEqual([
        expect.objectContaining({
          id: `${deposit.id}.v1`,
          type: 'deposit.user_input_required',
          data: {
            ...eventFields(deposit, w.clock.now()),
            status: 'user_input_required',
            step: 'ensure-beneficiary',
            version: 1,
            userInputs: question,
            inputExpiresAt: new Date(expiresAt).toISOString(),
          },
        }),
      ]);
    });

    it('arms a long expiry as a schedule to its own queue', async () => {
      const w = world();
      const ctx = { ...w.contexts.ensureBeneficiary(), settings: { ...settings, inputTtlMs: 3_600_000 } };
      const deposit = await atStep(w);
      const expiresAt = w.clock.now() + 3_600_000;
      w.provider.answer('listBeneficiaries', listed()).answer('createBeneficiary', answers.question('op-q'));

      await ensureBeneficiary(deposit, ctx);

      expect(ctx.queues.sent).toEqual([]);
      expect([...ctx.scheduler.schedules.values()]).toEqual([
        {
          at: expiresAt,
          message: { depositId: deposit.id, step: 'ensure-beneficiary', version: 1, kind: 'expire-input' },
        },
      ]);
      expect(w.table.claimItems.get(claimKey)?.claimedAt).toBe(expiresAt);
    });

    it('answers with the sealed answers: createBeneficiary gets them, and the list gives the id', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await answering(w, banks.beneficiary, 'dep_answered');
      const until = deposit.pendingInput?.expiresAt ?? 0;
      w.table.leaseItems.set(ownerKey, { holder: `${deposit.id}#own`, until });
      w.provider
        .answer('createBeneficiary', created('ref-1'))
        .answer('listBeneficiaries', listed({ id: 'ben-1' }));

      await ensureBeneficiary(deposit, ctx);

      // No list before the answered creation; one after it, without the answers.
      expect(w.provider.callsOf('listBeneficiaries')).toEqual([[credentials]]);
      expect(w.provider.callsOf('createBeneficiary')).toEqual([
        [credentials, beneficiaryOf(w), { id: 'op-q', userInputs: answered }],
      ]);
      const after = w.table.current(deposit.id);
      expect(after).toMatchObject({ status: 'initialized', step: 'transfer', beneficiaryId: 'ben-1' });
      expect(after.pendingInput).toBeUndefined();
      expect(after.sealedAnswers).toBeUndefined();
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', beneficiaryId: 'ben-1' });
      expect([...w.table.leaseItems.values()].map((held) => held.holder)).toEqual([
        w.table.current(deposit.id).leaseHeld,
      ]);
    });

    it("a second run of the deposit while the first holds the connection writes nothing: the first one's outcome lands", async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await answering(w, banks.beneficiary, 'dep_twice');
      // The bank stopped waiting just before the answers came: nothing ran, the creation asks again.
      let secondRun: Promise<void> | undefined;
      const port = ctx.provider;
      ctx.provider = {
        ...port,
        createBeneficiary: async (...args) => {
          // A copy of the deposit's message (or the sweeper's re-drive) runs while this call is out.
          secondRun = ensureBeneficiary(deposit, ctx);
          await secondRun;
          return port.createBeneficiary(...args);
        },
      };
      w.provider.answer('createBeneficiary', answers.refusal('USER_INPUT_EXPIRED'));

      await ensureBeneficiary(deposit, ctx);

      // The first run's outcome is the deposit's: the question asked again, the answers spent once.
      expect(secondRun).toBeDefined();
      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      const after = w.table.current(deposit.id);
      expect(after.history.map((entry) => entry.note)).not.toContain('connection busy');
      expect(after).toMatchObject({
        status: 'initialized',
        step: 'ensure-beneficiary',
        tallies: { reasks: 1 },
      });
      expect(after.sealedAnswers).toBeUndefined();
      // The second run only sent the step again, for when the first run's lease ends (if it died).
      expect(ctx.queues.sent[0]).toMatchObject({
        message: { depositId: deposit.id, step: 'ensure-beneficiary', version: deposit.version, kind: 'run' },
      });
      expect(ctx.queues.sent[0]?.delaySeconds).toBeGreaterThanOrEqual(
        settings.leaseMs / 1000 - settings.leasePatienceMs / 1000 - 1,
      );
    });

    it('gives the connection back when the deposit moved on while the bank asked', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      // Another worker moved the deposit on since this one read it (a duplicate message).
      w.table.put({ ...deposit, version: 1 });
      w.provider.answer('listBeneficiaries', listed()).answer('createBeneficiary', answers.question('op-q'));

      await ensureBeneficiary(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({ version: 1, status: 'initialized' });
      expect(w.table.leaseItems.size).toBe(0);
      expect(ctx.queues.sent).toEqual([]);
      expect(w.events.published).toEqual([]);
    });
  });

  /**
   * An answered creation that the bank refuses as BENEFICIARY_ALREADY_EXISTS (the typical case: the
   * answered call's outcome was lost, and its retry finds the beneficiary made) looks in the list,
   * with the spent answers dropped: at once at a bank that lists new ones, after the cool-down at one
   * that hides them. (Both failed before the fix: the step never listed after an answered creation.)
   */
  describe('an answered creation refused as existing', () => {
    it('at a bank that hides new ones, is looked up in the list after the cool-down', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await answering(w, banks.hiddenCoolDown);
      w.provider
        .answer('createBeneficiary', answers.refusal('BENEFICIARY_ALREADY_EXISTS'))
        .answer('listBeneficiaries', listed({ id: 'ben-9', status: 'approved' }));
      await ensureBeneficiary(deposit, ctx);
      const waiting = w.table.current(deposit.id);
      expect(waiting.pendingInput).toBeUndefined();
      expect(waiting.sealedAnswers).toBeUndefined();
      w.clock.set(waiting.beneficiaryWork?.lookupAt ?? 0);

      await ensureBeneficiary(waiting, ctx);

      expect(w.provider.callsOf('listBeneficiaries')).toHaveLength(1);
      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-9' });
    });

    it('at a bank that lists new ones, is looked up in the list at once', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await answering(w, banks.beneficiary);
      w.provider
        .answer('createBeneficiary', answers.refusal('BENEFICIARY_ALREADY_EXISTS'))
        .answer('listBeneficiaries', listed({ id: 'ben-9', status: 'approved' }));

      await ensureBeneficiary(deposit, ctx);
      const lookup = w.table.current(deposit.id);
      expect(
        ctx.queues.sent.map((sent) => [sent.message.step, sent.message.version, sent.delaySeconds]),
      ).toEqual([['ensure-beneficiary', lookup.version, 0]]);
      await ensureBeneficiary(lookup, ctx);

      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-9' });
    });

    /**
     * INVALID_OPERATION_ID to the answers: the operation no longer waits for them. It may have run
     * (the answered call's outcome lost) or not (the bank stopped waiting, and a retry of that call
     * whose outcome was lost used the wait up): the list decides. (The second failed before: the
     * deposit failed BENEFICIARY_UNRESOLVED, "created but not listed", for a creation never made.)
     */
    it('spent answers, and the list shows it: the creation ran, and is used', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await answering(w, banks.beneficiary);
      w.provider
        .answer('createBeneficiary', answers.refusal('INVALID_OPERATION_ID'))
        .answer('listBeneficiaries', listed({ id: 'ben-9', status: 'approved' }));

      await ensureBeneficiary(deposit, ctx);
      await lookUpWhenDue(w, deposit.id, ctx);

      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-9' });
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', beneficiaryId: 'ben-9' });
      expect(w.table.claimItems.get(claimKey)?.unconfirmed).toBeUndefined();
    });

    it('spent answers: the look-up waits as long as after a plain creation, so a list that lags shows it', async () => {
      // prepare: the answered creation ran (its outcome lost); the bank lists it only a while later
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await answering(w, banks.beneficiary);
      w.provider.answer('createBeneficiary', answers.refusal('INVALID_OPERATION_ID'));

      // act
      await ensureBeneficiary(deposit, ctx);

      // assess: no look-up yet; it is armed for when a plain creation's would be
      const waiting = w.table.current(deposit.id);
      expect(w.provider.callsOf('listBeneficiaries')).toEqual([]);
      expect(waiting.beneficiaryWork?.lookupAt).toBe(w.clock.now() + LOOK_UP_AGAIN_MS);
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', unconfirmed: true });
      expect(ctx.queues.sent.map((sent) => [sent.message.step, sent.delaySeconds])).toEqual([
        ['ensure-beneficiary', LOOK_UP_AGAIN_MS / 1000],
      ]);
    });

    it('spent answers, and the list does not show it: it never ran, and is created again (asked again)', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await answering(w, banks.beneficiary);
      w.provider
        .answer('createBeneficiary', answers.refusal('INVALID_OPERATION_ID'), answers.question('op-r'))
        .answer('listBeneficiaries', listed(), listed());

      await ensureBeneficiary(deposit, ctx);
      await lookUpWhenDue(w, deposit.id, ctx);
      const again = w.table.current(deposit.id);

      expect(again).toMatchObject({
        status: 'initialized',
        step: 'ensure-beneficiary',
        tallies: { reasks: 1 },
      });
      expect(again.history.at(-1)?.note).toBe('the answered creation did not run: creating it again');
      expect(again.beneficiaryWork?.lookupAt).toBeUndefined();
      expect(w.table.heldClaim(claimKey)).toBeUndefined();

      await ensureBeneficiary(again, ctx);

      // A new creation, without the spent answers: the bank asks its question again.
      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(2);
      expect(w.provider.callsOf('createBeneficiary')[1]?.[2]).toBeUndefined();
      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'user_input_required',
        pendingInput: { providerOperationId: 'op-r' },
      });
    });
  });

  /**
   * The creation's answer is never read for the beneficiary's id (the spec does not say its
   * `reference` is the id): the list, matched on the wallet's account identifiers, gives it.
   * (These failed before: the reference was taken for the id, and a creation without one failed.)
   */
  describe("the beneficiary's id comes from the list, not from the creation", () => {
    it.for([
      { label: 'a done answer without reference', answer: created() },
      {
        label: 'an answer still initialized',
        answer: { status: 'initialized', id: 'op-1', response: { reference: 'ref-1' } },
      },
    ])('looks up $label in the list', async ({ answer }) => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      w.provider
        .answer('listBeneficiaries', listed(), listed({ id: 'ben-5' }))
        .answer('createBeneficiary', answer);

      await ensureBeneficiary(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-5' });
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', beneficiaryId: 'ben-5' });
      expect([...w.table.leaseItems.values()].map((held) => held.holder)).toEqual([
        w.table.current(deposit.id).leaseHeld,
      ]);
    });

    it('matches a listed IBAN as well as the account number', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      const iban = beneficiaryOf(w)?.iban ?? '';
      w.provider.answer('listBeneficiaries', listed({ id: 'ben-iban', accountNumber: iban.toLowerCase() }));

      await ensureBeneficiary(deposit, ctx);

      expect(iban).not.toBe('');
      expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
      expect(w.table.current(deposit.id)).toMatchObject({ beneficiaryId: 'ben-iban' });
    });

    it.for(['BENEFICIARY_EXISTS', 'DUPLICATE_BENEFICIARY'])(
      'takes the refusal %s as a sign that it exists: the same look-up',
      async (type) => {
        const w = world();
        const ctx = w.contexts.ensureBeneficiary();
        const deposit = await atStep(w, banks.hiddenCoolDown);
        w.provider.answer('createBeneficiary', answers.refusal(type));

        await ensureBeneficiary(deposit, ctx);

        expect(w.table.current(deposit.id)).toMatchObject({
          status: 'initialized',
          beneficiaryWork: { lookupAt: w.clock.now() + banks.hiddenCoolDown.coolDownMs + 1_000 },
        });
      },
    );

    it('a creation the list does not show yet: looked up again later, then failed, never created twice', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      w.provider
        .answer('listBeneficiaries', listed(), listed(), listed({ id: 'other', accountNumber: '999' }))
        .answer('createBeneficiary', created('ref-1'));

      await ensureBeneficiary(deposit, ctx);

      const waiting = w.table.current(deposit.id);
      const lookupAt = w.clock.now() + LOOK_UP_AGAIN_MS;
      expect(waiting).toMatchObject({ status: 'initialized', beneficiaryWork: { lookupAt: lookupAt } });
      expect(w.events.published).toEqual([]);
      w.clock.set(lookupAt);
      await ensureBeneficiary(waiting, ctx);

      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.provider.callsOf('listBeneficiaries')).toHaveLength(3);
      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'failed',
        failure: { type: 'BENEFICIARY_UNRESOLVED' },
      });
      expect(w.table.claimItems.has(claimKey)).toBe(false);
    });

    it('a question on the list after the creation: asks the caller, and the answered list is a look-up', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const deposit = await atStep(w);
      w.provider
        .answer('listBeneficiaries', listed(), answers.question('op-list'))
        .answer('createBeneficiary', created('ref-1'));

      await ensureBeneficiary(deposit, ctx);

      const asking = w.table.current(deposit.id);
      expect(asking).toMatchObject({
        status: 'user_input_required',
        pendingInput: { providerOperationId: 'op-list', operation: 'list' },
        beneficiaryWork: { lookupAt: w.clock.now() },
      });
      const withAnswers = { ...asking, sealedAnswers: await w.vault.seal('answers', asking.id, answered) };
      w.table.put(withAnswers);
      w.provider.answer('listBeneficiaries', listed({ id: 'ben-6', status: 'approved' }));

      await ensureBeneficiary(withAnswers, ctx);

      expect(w.provider.callsOf('listBeneficiaries').at(-1)).toEqual([
        credentials,
        { id: 'op-list', userInputs: answered },
      ]);
      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.table.current(deposit.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-6' });
    });
  });

  describe('failures', () => {
    it('fails a refusal with its type, and frees the claim so that another deposit may create', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const refused = await atStep(w);
      const other = await atStep(w);
      w.provider
        .answer('listBeneficiaries', listed(), listed(), listed({ id: 'ben-2' }))
        .answer('createBeneficiary', answers.refusal('INVALID_IBAN'), created('ref-2'));

      await ensureBeneficiary(refused, ctx);

      const after = w.table.current(refused.id);
      expect(after).toMatchObject({ status: 'failed', step: 'completed', failure: { type: 'INVALID_IBAN' } });
      expect(after.sealedCredentials).toBeUndefined();
      // Freed: claimable at once, what fitted before its creation kept for the next holder.
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'creating', claimedAt: 0 });
      expect(w.table.leaseItems.size).toBe(0);
      expect(w.events.published).toEqual([
        expect.objectContaining({ id: `${refused.id}.v1`, type: 'deposit.failed' }),
      ]);

      await ensureBeneficiary(other, ctx);

      expect(w.table.claimItems.get(claimKey)).toMatchObject({
        state: 'created',
        depositId: other.id,
        beneficiaryId: 'ben-2',
      });
      expect(w.table.current(other.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-2' });
    });

    it('a holder cancelled after a creation that did not answer leaves what fitted before it: the next tells the masked entry apart', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      const holder = await atStep(w);
      const other = await atStep(w);
      // The bank lists accounts masked: nothing fits before the holder's creation; after it, one entry.
      w.provider
        .answer('listBeneficiaries', listed(), listed({ id: 'ben-9', accountNumber: '****3456' }))
        .answer('createBeneficiary', answers.unknown('timeout'));

      // The holder's creation lands at the bank, its answer is lost: a retry later, the claim held.
      await ensureBeneficiary(holder, ctx);
      expect(w.table.current(holder.id)).toMatchObject({
        step: 'ensure-beneficiary',
        stepCounters: { retries: 1 },
      });
      // Then its owner cancels it.
      await cancelDeposit(
        { depositId: holder.id, accessToken: credentials.accessToken, userSecret: credentials.userSecret },
        w.contexts.cancel(),
      );
      expect(w.table.current(holder.id)).toMatchObject({ status: 'failed', failure: { type: 'CANCELLED' } });

      await ensureBeneficiary(w.table.current(other.id), ctx);

      // The one new masked entry is the holder's creation: used, never created again nor ambiguous.
      expect(w.table.current(other.id)).toMatchObject({ step: 'transfer', beneficiaryId: 'ben-9' });
      expect(w.provider.callsOf('createBeneficiary')).toHaveLength(1);
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'created', beneficiaryId: 'ben-9' });
    });

    it('retries an unknown outcome later, counted, and fails PROVIDER_UNAVAILABLE past the limit', async () => {
      const w = world();
      const ctx = w.contexts.ensureBeneficiary();
      let deposit = await atStep(w);
      w.provider.answer(
        'listBeneficiaries',
        ...Array.from({ length: settings.maxRetries + 1 }, () => answers.unknown('timeout')),
      );

      for (let attempt = 1; attempt <= settings.maxRetries; attempt += 1) {
        await ensureBeneficiary(deposit, ctx);
        deposit = w.table.current(deposit.id);
        expect(deposit).toMatchObject({
          status: 'initialized',
          step: 'ensure-beneficiary',
          stepCounters: { retries: attempt },
        });
        expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'creating', depositId: deposit.id });
      }
      await ensureBeneficiary(deposit, ctx);

      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'failed',
        failure: { type: 'PROVIDER_UNAVAILABLE' },
      });
      expect(
        ctx.queues.sent.map((sent) => [sent.message.step, sent.message.version, sent.delaySeconds]),
      ).toEqual([
        ['ensure-beneficiary', 1, 3],
        ['ensure-beneficiary', 2, 5],
        ['ensure-beneficiary', 3, 7],
      ]);
      expect(w.provider.callsOf('createBeneficiary')).toEqual([]);
      // Freed: claimable at once, what fitted before its creation kept for the next holder.
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'creating', claimedAt: 0 });
      expect(w.table.leaseItems.size).toBe(0);
    });
  });
});
