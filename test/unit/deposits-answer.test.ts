/**
 * The answer route, through the fakes: the caller's answers to the bank's
 * question by the deposit's id, each input by its `id` alone (no create body, no `query`); the
 * deposit goes back to the step that asked, as a repeated create with `userInputs` sends it.
 */
import { describe, expect, it } from 'vitest';
import type { Deposit } from '#shared/deposits/model/deposit';
import { answerDeposit } from '#shared/deposits/requests/answer';
import { startDeposit } from '#shared/deposits/requests/start';
import { asked, banks, credentials, settings, startRequest, world } from '../support/deposit-world.ts';

const backend = 'local:local-backend';
type World = ReturnType<typeof world>;

/** A deposit of `backend` waiting at its transfer for the answer to a one-time password and a PIN. */
async function waiting(w: World, overrides: Partial<Deposit> = {}) {
  const { view } = await startDeposit(startRequest({ backend }), w.contexts.start());
  const stored = w.table.current(view.operationID);
  return w.table.put({
    ...stored,
    status: 'user_input_required',
    step: 'transfer',
    bank: banks.beneficiary,
    beneficiaryId: 'ben-1',
    pendingInput: {
      providerOperationId: 'op-t',
      operation: 'transfer',
      userInputs: [...asked, { id: 'pin', index: 1, query: 'Card PIN' }],
      expiresAt: w.clock.now() + settings.inputTtlMs,
    },
    ...overrides,
  });
}

const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { type?: string; details?: string[] }) => ({ type: error.type, details: error.details }),
  );

describe('POST /v1/deposits/answer', () => {
  it("takes each input by its id, completes it with the question's own index and query, and goes back to the step that asked", async () => {
    // prepare
    const w = world();
    const deposit = await waiting(w);
    const ctx = w.contexts.answer();

    // act
    const view = await answerDeposit(
      {
        depositId: deposit.id,
        backend,
        userInputs: [
          { id: 'pin', answer: '0000' },
          { id: 'otp', answer: '123456' },
        ],
      },
      ctx,
    );

    // assess
    expect(view).toMatchObject({ operationID: deposit.id, status: 'initialized', step: 'transfer' });
    const after = w.table.current(deposit.id);
    expect(await w.vault.open('answers', deposit.id, String(after.sealedAnswers))).toEqual([
      { id: 'otp', index: 0, query: 'One-time password', answer: '123456' },
      { id: 'pin', index: 1, query: 'Card PIN', answer: '0000' },
    ]);
    expect(ctx.queues.sent.map((sent) => sent.message)).toEqual([
      { depositId: deposit.id, step: 'transfer', version: after.version, kind: 'run' },
    ]);
  });

  it('needs no secret of the backend that created it, and takes them when sent', async () => {
    const w = world();
    const deposit = await waiting(w);

    const view = await answerDeposit(
      {
        depositId: deposit.id,
        backend,
        ...credentials,
        userInputs: [
          { id: 'otp', answer: '1' },
          { id: 'pin', answer: '2' },
        ],
      },
      w.contexts.answer(),
    );

    expect(view.status).toBe('initialized');
  });

  it.each([
    [
      'an input the bank did not ask',
      [
        { id: 'otp', answer: '1' },
        { id: 'pin', answer: '2' },
        { id: 'cvv', answer: '3' },
      ],
      ['userInputs.2.id: the bank asked no input cvv'],
    ],
    [
      'an input left out',
      [{ id: 'otp', answer: '1' }],
      ['userInputs: no answer to the input pin the bank asked'],
    ],
    [
      'an input answered twice',
      [
        { id: 'otp', answer: '1' },
        { id: 'otp', answer: '2' },
        { id: 'pin', answer: '3' },
      ],
      ['userInputs.1.id: otp is answered twice'],
    ],
  ])('refuses %s, naming it, and leaves the deposit waiting', async (_name, userInputs, details) => {
    const w = world();
    const deposit = await waiting(w);

    const refusal = await refusalOf(
      answerDeposit({ depositId: deposit.id, backend, userInputs }, w.contexts.answer()),
    );

    expect(refusal).toEqual({ type: 'BAD_REQUEST', details });
    expect(w.table.current(deposit.id)).toMatchObject({
      status: 'user_input_required',
      version: deposit.version,
    });
  });

  it('refuses a deposit that waits for no answer: DEPOSIT_NOT_WAITING, saying where it stands', async () => {
    const w = world();
    const { view } = await startDeposit(startRequest({ backend }), w.contexts.start());

    const refusal = answerDeposit(
      { depositId: view.operationID, backend, userInputs: [{ id: 'otp', answer: '1' }] },
      w.contexts.answer(),
    );

    await expect(refusal).rejects.toMatchObject({
      type: 'DEPOSIT_NOT_WAITING',
      message: 'The deposit waits for no answer: it is initialized at resolve-bank',
    });
  });

  it('is nothing to another backend: DEPOSIT_NOT_FOUND', async () => {
    const w = world();
    const deposit = await waiting(w);

    const refusal = await refusalOf(
      answerDeposit(
        { depositId: deposit.id, backend: 'local:another', userInputs: [{ id: 'otp', answer: '1' }] },
        w.contexts.answer(),
      ),
    );

    expect(refusal).toMatchObject({ type: 'DEPOSIT_NOT_FOUND' });
  });

  it('fails a deposit whose question expired: INPUT_EXPIRED, as a late repeated create does', async () => {
    const w = world();
    const deposit = await waiting(w);
    w.clock.advance(settings.inputTtlMs);

    const view = await answerDeposit(
      {
        depositId: deposit.id,
        backend,
        userInputs: [
          { id: 'otp', answer: '1' },
          { id: 'pin', answer: '2' },
        ],
      },
      w.contexts.answer(),
    );

    expect(view).toMatchObject({ status: 'failed', type: 'INPUT_EXPIRED' });
  });
});
