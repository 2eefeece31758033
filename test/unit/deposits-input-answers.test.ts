/** The caller's part through the fakes: a question's expiry, the answers, the resume through startDeposit. */
import { describe, expect, it } from 'vitest';
import { answerFor, expireInput } from '#shared/deposits/journey/input';
import type { Deposit, WorkStep } from '#shared/deposits/model/deposit';
import { DepositError } from '#shared/deposits/model/errors';
import { type StartDeposit, startDeposit } from '#shared/deposits/requests/start';
import { otp, pausedAtBeneficiary } from '../support/deposit-input.ts';
import {
  asked,
  banks,
  claimKey,
  credentials,
  ownerKey,
  question,
  settings,
  type World,
  world,
} from '../support/deposit-world.ts';

describe('expireInput', () => {
  it.for([
    { label: 'at', after: 0 },
    { label: 'after', after: 60_000 },
  ])(
    '$label its expiry: fails INPUT_EXPIRED, frees the lease and the creating claim, tells the caller',
    async ({ after }) => {
      const w = world();
      const { ctx, paused, expiry } = await pausedAtBeneficiary(w);
      expect(w.table.leaseItems.get(ownerKey)?.holder).toBe(`${paused.id}#own`);
      expect(w.table.claimItems.get(claimKey)).toMatchObject({ state: 'creating', depositId: paused.id });
      w.clock.set((paused.pendingInput?.expiresAt ?? 0) + after);

      await expireInput(ctx, paused, expiry);

      const failed = w.table.current(paused.id);
      expect(failed).toMatchObject({
        status: 'failed',
        step: 'completed',
        version: paused.version + 1,
        failure: { type: 'INPUT_EXPIRED' },
      });
      expect(failed.pendingInput).toBeUndefined();
      expect(failed.sealedCredentials).toBeUndefined();
      expect(w.table.leaseItems.size).toBe(0);
      expect(w.table.heldClaim(claimKey)).toBeUndefined();
      expect(w.events.published).toEqual([
        expect.objectContaining({
          id: `${paused.id}.v${paused.version + 1}`,
          type: 'deposit.failed',
          data: expect.objectContaining({ type: 'INPUT_EXPIRED' }),
        }),
      ]);
      expect(ctx.queues.sent).toEqual([]);
    },
  );

  it('woken early: sends the expiry again, delayed to the time left, and writes nothing', async () => {
    const w = world();
    const { ctx, paused, expiry } = await pausedAtBeneficiary(w);
    const writes = w.table.writes.length;
    w.clock.advance(60_000);

    await expireInput(ctx, paused, expiry);

    expect(ctx.queues.sent).toEqual([
      { message: expiry, delaySeconds: (settings.inputTtlMs - 60_000) / 1000 },
    ]);
    expect(w.table.writes).toHaveLength(writes);
    expect(w.table.current(paused.id).status).toBe('user_input_required');
    expect(w.table.leaseItems.get(ownerKey)?.holder).toBe(`${paused.id}#own`);
    expect(w.events.published).toEqual([]);
  });

  it.for([
    { label: 'a message for an older version', change: (d: Deposit) => ({ ...d, version: d.version + 1 }) },
    {
      label: 'a deposit no longer waiting',
      change: (d: Deposit) => ({ ...d, status: 'initialized' as const, sealedAnswers: 'sealed' }),
    },
  ])('ignores $label', async ({ change }) => {
    const w = world();
    const { ctx, paused, expiry } = await pausedAtBeneficiary(w);
    const moved = w.table.put(change(paused));
    const writes = w.table.writes.length;
    w.clock.set((paused.pendingInput?.expiresAt ?? 0) + 1);

    await expireInput(ctx, moved, expiry);

    expect(w.table.writes).toHaveLength(writes);
    expect(w.table.current(paused.id)).toEqual(moved);
    expect(ctx.queues.sent).toEqual([]);
    expect(w.events.published).toEqual([]);
    expect(w.table.leaseItems.get(ownerKey)?.holder).toBe(`${paused.id}#own`);
  });
});

describe('answerFor', () => {
  const questions = [
    { id: 'otp', index: 0, query: 'One-time password', answer: '' },
    { id: 'pin', index: 1, query: 'PIN', answer: '' },
    { id: 'word', index: 2, query: 'Memorable word', answer: '' },
  ];
  const pendingInput = { providerOperationId: 'op-q', userInputs: questions, expiresAt: 0 };

  it("maps the caller's answers onto the pending question by id", async () => {
    const w = world();
    const given = [
      { id: 'pin', index: 9, query: 'whatever', answer: '4321' },
      { id: 'extra', index: 3, query: 'not asked', answer: 'x' },
      { id: 'otp', index: 7, query: 'whatever', answer: '123456' },
    ];
    const deposit = await w.deposit({
      id: 'dep_a',
      pendingInput,
      sealedAnswers: await w.vault.seal('answers', 'dep_a', given),
    });

    const answer = await answerFor(w, deposit);

    expect(answer).toEqual({
      id: 'op-q',
      userInputs: [
        { id: 'otp', index: 0, query: 'One-time password', answer: '123456' },
        { id: 'pin', index: 1, query: 'PIN', answer: '4321' },
        { id: 'word', index: 2, query: 'Memorable word', answer: '' },
      ],
    });
  });

  it.for([
    { label: 'without sealed answers', withPending: true, withAnswers: false },
    { label: 'without a pending question', withPending: false, withAnswers: true },
  ])('gives none $label', async ({ withPending, withAnswers }) => {
    const w = world();
    const deposit = await w.deposit({
      id: 'dep_b',
      ...(withPending ? { pendingInput } : {}),
      ...(withAnswers ? { sealedAnswers: await w.vault.seal('answers', 'dep_b', otp) } : {}),
    });

    expect(await answerFor(w, deposit)).toBeUndefined();
  });
});

describe('resuming through startDeposit', () => {
  function request(overrides: Partial<StartDeposit> = {}): StartDeposit {
    return {
      accessToken: credentials.accessToken,
      appSecret: credentials.appSecret,
      userSecret: credentials.userSecret,
      amount: 25.5,
      senderID: 'acc-1',
      idempotencyKey: 'k1',
      ...overrides,
    };
  }

  /** A deposit started by the API, then paused by `step` at the bank's question. */
  async function waitingAt(w: World, step: Extract<WorkStep, 'ensure-beneficiary' | 'transfer'>) {
    const ctx = w.contexts.start();
    const started = await startDeposit(request(), ctx);
    expect(started.started).toBe(true);
    const id = started.view.operationID;
    const expiresAt = w.clock.now() + settings.inputTtlMs;
    const paused = w.table.put({
      ...w.table.current(id),
      status: 'user_input_required',
      step,
      version: 3,
      bank: banks.beneficiary,
      pendingInput: { providerOperationId: 'op-q', userInputs: asked, expiresAt },
    });
    w.table.leaseItems.set(ownerKey, { holder: `${id}#own`, until: expiresAt });
    w.table.claimItems.set(claimKey, {
      ownerKey,
      walletAccountId: 'wallet-aed',
      state: 'creating',
      depositId: id,
      claimedAt: expiresAt,
    });
    ctx.queues.sent.length = 0;
    return { ctx, paused };
  }

  it.for(['ensure-beneficiary', 'transfer'] as const)(
    'goes back to %s, which asked, with the answers sealed',
    async (step) => {
      const w = world();
      const { ctx, paused } = await waitingAt(w, step);
      w.clock.advance(10_000);

      const response = await startDeposit(request({ userInputs: otp }), ctx);

      expect(response.started).toBe(false);
      expect(response.view).toMatchObject({ operationID: paused.id, status: 'initialized', step });
      const after = w.table.current(paused.id);
      expect(after).toMatchObject({
        status: 'initialized',
        step,
        version: 4,
        pendingInput: paused.pendingInput,
      });
      expect(after.history.at(-1)).toMatchObject({ step, status: 'initialized', note: 'input answered' });
      expect(after.sealedAnswers).toEqual(expect.any(String));
      expect(JSON.stringify(after)).not.toContain('123456');
      expect(await w.vault.open('answers', paused.id, after.sealedAnswers ?? '')).toEqual(otp);
      expect(ctx.queues.sent).toEqual([
        { message: { depositId: paused.id, step, version: 4, kind: 'run' }, delaySeconds: 0 },
      ]);
      // The lease and the claim stay with the deposit until the step uses the answer.
      expect(w.table.leaseItems.get(ownerKey)?.holder).toBe(`${paused.id}#own`);
      expect(w.table.claimItems.get(claimKey)?.depositId).toBe(paused.id);
    },
  );

  it.for([
    { step: 'ensure-beneficiary' as const, claimKept: false },
    { step: 'transfer' as const, claimKept: true },
  ])('fails INPUT_EXPIRED for an answer after the expiry at $step', async ({ step, claimKept }) => {
    const w = world();
    const { ctx, paused } = await waitingAt(w, step);
    w.clock.set(paused.pendingInput?.expiresAt ?? 0);

    const response = await startDeposit(request({ userInputs: otp }), ctx);

    expect(response.started).toBe(false);
    expect(response.view).toMatchObject({ status: 'failed', success: false, type: 'INPUT_EXPIRED' });
    const after = w.table.current(paused.id);
    expect(after).toMatchObject({ status: 'failed', step: 'completed', failure: { type: 'INPUT_EXPIRED' } });
    expect(after.sealedAnswers).toBeUndefined();
    expect(ctx.queues.sent).toEqual([]);
    expect(w.table.leaseItems.size).toBe(0);
    expect(w.table.heldClaim(claimKey) !== undefined).toBe(claimKept);
    expect(w.events.types()).toEqual(['deposit.failed']);
  });

  it.for([
    { label: 'a different amount', change: { amount: 30 } },
    { label: 'a different user secret', change: { userSecret: 'someone-else' } },
  ])('refuses $label with the same key as IDEMPOTENCY_KEY_REUSED', async ({ change }) => {
    const w = world();
    const { ctx, paused } = await waitingAt(w, 'transfer');

    const attempt = startDeposit(request({ ...change, userInputs: otp }), ctx);

    await expect(attempt).rejects.toBeInstanceOf(DepositError);
    await expect(attempt).rejects.toMatchObject({ type: 'IDEMPOTENCY_KEY_REUSED' });
    expect(w.table.current(paused.id)).toEqual(paused);
    expect(ctx.queues.sent).toEqual([]);
  });

  it('answers the same deposit for the same request without answers, and sends nothing', async () => {
    const w = world();
    const { ctx, paused } = await waitingAt(w, 'transfer');

    const response = await startDeposit(request(), ctx);

    expect(response.started).toBe(false);
    expect(response.view).toMatchObject({
      operationID: paused.id,
      status: 'user_input_required',
      userInputs: question,
    });
    expect(w.table.current(paused.id)).toEqual(paused);
    expect(ctx.queues.sent).toEqual([]);
    expect(w.table.items.size).toBe(1);
  });

  it('answers the same deposit, sending nothing, when answers come for a deposit not waiting', async () => {
    const w = world();
    const ctx = w.contexts.start();
    const started = await startDeposit(request(), ctx);
    ctx.queues.sent.length = 0;

    const response = await startDeposit(request({ userInputs: otp }), ctx);

    expect(response).toMatchObject({ started: false, view: { operationID: started.view.operationID } });
    expect(w.table.current(started.view.operationID)).toMatchObject({ version: 0, status: 'initialized' });
    expect(w.table.current(started.view.operationID).sealedAnswers).toBeUndefined();
    expect(ctx.queues.sent).toEqual([]);
  });
});
