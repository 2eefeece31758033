/** The caller's part through the fakes: the pause at a question, its expiry, the answers, the resume. */
import { describe, expect, it } from 'vitest';
import { answerFor, expireInput, pauseForInput } from '#shared/deposits/journey/input';
import type { Deposit, WorkStep } from '#shared/deposits/model/deposit';
import { DepositError } from '#shared/deposits/model/errors';
import type { StepMessage } from '#shared/deposits/model/messages';
import { depositView } from '#shared/deposits/model/views';
import { type StartDeposit, startDeposit } from '#shared/deposits/requests/start';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { inputLimits } from '#shared/provider/interface/limits';
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

const claimKey = `${ownerKey}#wallet-aed`;
const otp = question.map((input) => ({ ...input, answer: '123456' }));

/** A deposit paused by ensure-beneficiary at the bank's question, as the step leaves it, and its expiry message. */
async function pausedAtBeneficiary(w: World) {
  const ctx = w.contexts.ensureBeneficiary();
  const deposit = await w.deposit({ step: 'ensure-beneficiary', bank: banks.beneficiary });
  w.provider
    .answer(
      'listBeneficiaries',
      answers.done({ jobID: 'j', success: true, status: 'done', beneficiaries: [] }),
    )
    .answer('createBeneficiary', answers.question('op-q'));
  await ensureBeneficiary(deposit, ctx);
  const expiry = ctx.queues.sent.at(-1)?.message;
  if (expiry?.kind !== 'expire-input') throw new Error('the step armed no expiry');
  ctx.queues.sent.length = 0;
  w.table.writes.length = 0;
  return {
    ctx,
    paused: w.table.current(deposit.id),
    expiry: expiry as StepMessage & { step: 'ensure-beneficiary' },
  };
}

describe('pauseForInput', () => {
  it("keeps the bank's question bounded: id, index and a query cut to its limit, never the answer field", async () => {
    // prepare: the bank sends an `answer` of its own and a query past the limit
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({ step: 'transfer', bank: banks.beneficiary });
    const sent = [
      { id: 'otp', index: 0, query: 'q'.repeat(inputLimits.query + 50), answer: 'whatever-the-bank-put' },
    ];

    // act
    await pauseForInput(
      ctx,
      deposit,
      'transfer',
      { ...answers.question('op-t'), userInputs: sent },
      { operation: 'transfer' },
    );

    // assess
    const after = w.table.current(deposit.id);
    expect(after.pendingInput?.userInputs).toEqual([
      { id: 'otp', index: 0, query: 'q'.repeat(inputLimits.query) },
    ]);
    expect(depositView(after, w.clock.now()).userInputs).toEqual([
      { id: 'otp', index: 0, query: 'q'.repeat(inputLimits.query), answer: '' },
    ]);
    expect(JSON.stringify([after, w.events.published])).not.toContain('whatever-the-bank-put');
  });

  it.for([
    [
      'more inputs than a caller may answer',
      Array.from({ length: inputLimits.userInputs + 1 }, (_, index) => ({
        id: `q${index}`,
        index,
        query: 'Q',
        answer: '',
      })),
    ],
    [
      'an id longer than a caller may send back',
      [{ id: 'i'.repeat(inputLimits.inputId + 1), index: 0, query: 'Q', answer: '' }],
    ],
  ] as const)(
    "fails PROVIDER_PROTOCOL_ERROR for a question past its bounds (%s), freeing the call's lease",
    async ([, sent]) => {
      const w = world();
      const ctx = w.contexts.transfer();
      const deposit = await w.deposit({ step: 'transfer', bank: banks.beneficiary });
      w.table.leaseItems.set(ownerKey, { holder: 'call-lease', until: w.clock.now() + settings.leaseMs });

      const next = await pauseForInput(
        ctx,
        deposit,
        'transfer',
        { ...answers.question('op-t'), userInputs: [...sent] },
        { operation: 'transfer', lease: 'call-lease' },
      );

      expect(next).toBeUndefined();
      expect(w.table.current(deposit.id)).toMatchObject({
        status: 'failed',
        failure: { type: 'PROVIDER_PROTOCOL_ERROR' },
      });
      expect(w.table.current(deposit.id).pendingInput).toBeUndefined();
      expect(w.table.leaseItems.size).toBe(0);
    },
  );

  it('waits for the caller: the question, the lease passed on, the expiry to the asking step, the event', async () => {
    // prepare
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({ step: 'transfer', bank: banks.beneficiary, sealedAnswers: 'old' });
    w.table.leaseItems.set(ownerKey, { holder: 'call-lease', until: w.clock.now() + settings.leaseMs });
    const expiresAt = w.clock.now() + settings.inputTtlMs;

    // act
    const next = await pauseForInput(ctx, deposit, 'transfer', answers.question('op-t'), {
      operation: 'transfer',
      lease: 'call-lease',
    });

    // assess
    const after = w.table.current(deposit.id);
    expect(next).toEqual(after);
    expect(after).toMatchObject({
      status: 'user_input_required',
      step: 'transfer',
      version: 1,
      pendingInput: { providerOperationId: 'op-t', userInputs: asked, expiresAt },
      checkAt: expiresAt + settings.stallAfterMs,
    });
    expect(after.sealedAnswers).toBeUndefined();
    expect(w.table.leaseItems.get(ownerKey)).toEqual({ holder: `${deposit.id}#own`, until: expiresAt });
    expect(ctx.queues.sent).toEqual([
      {
        message: { depositId: deposit.id, step: 'transfer', version: 1, kind: 'expire-input' },
        delaySeconds: settings.inputTtlMs / 1000,
      },
    ]);
    expect(w.events.published).toEqual([
      {
        id: `${deposit.id}.v1`,
        type: 'deposit.user_input_required',
        depositId: deposit.id,
        occurredAt: new Date(w.clock.now()).toISOString(),
        data: {
          ...eventFields(deposit, w.clock.now()),
          status: 'user_input_required',
          step: 'transfer',
          version: 1,
          userInputs: question,
          inputExpiresAt: new Date(expiresAt).toISOString(),
        },
      },
    ]);
  });

  it("gives the call's lease back, and does nothing more, when another worker moved the deposit first", async () => {
    const w = world();
    const ctx = w.contexts.transfer();
    const deposit = await w.deposit({ step: 'transfer', bank: banks.beneficiary });
    w.table.put({ ...deposit, version: 1 });
    w.table.leaseItems.set(ownerKey, { holder: 'call-lease', until: w.clock.now() + settings.leaseMs });

    const next = await pauseForInput(ctx, deposit, 'transfer', answers.question(), {
      operation: 'transfer',
      lease: 'call-lease',
    });

    expect(next).toBeUndefined();
    expect(w.table.current(deposit.id)).toMatchObject({ version: 1, status: 'initialized' });
    expect(w.table.leaseItems.size).toBe(0);
    expect(ctx.queues.sent).toEqual([]);
    expect(w.events.published).toEqual([]);
  });
});

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
