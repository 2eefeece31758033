/**
 * The banks with a cool-down listed at once or questions on reads, over real HTTP: each alone at the
 * sandbox (SANDBOX_COOLDOWN_LISTED's pending beneficiary on the sandbox's own clock, in
 * test/unit/sandbox-cooldown.test.ts), then a whole deposit through the orchestrator on each, the test answering every question the deposit asks (the deposits API passes
 * `userInputs` through to the provider call that asked).
 *   SANDBOX_COOLDOWN_LISTED    a cool-down bank that lists a new beneficiary at once, `pending`, then `approved`
 *   SANDBOX_OTP_READS          asks a one-time password on metadata and on the beneficiary list
 *   SANDBOX_OTP_INLINE         no beneficiaries; asks a one-time password on the inline transfer
 *   SANDBOX_OTP_TWO_QUESTIONS  asks `otp` and `secret_question` (indexes 0 and 1) at once
 *   SANDBOX_COOLDOWN_OTP_LIST  hides a new beneficiary for 3.6 s and asks a one-time password on its list
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { depositWhen, otpAnswer, startDeposit } from '../support/deposits.ts';
import {
  createUser,
  type Reply,
  request,
  stateOf,
  type TestUser,
  walletBeneficiary,
  walletInline,
} from '../support/sandbox.ts';

const OTP = '123456';

/** Every question of a `user_input_required` reply, answered with the sandbox's OTP. */
function answered(reply: Reply) {
  const inputs = reply.body.userInputs as { id: string; index: number; query: string }[] | undefined;
  if (!inputs?.length) throw new Error(`no question asked: ${reply.status} ${JSON.stringify(reply.body)}`);
  return inputs.map((input) => ({ ...input, answer: OTP }));
}

describe('the new banks are in the catalog', () => {
  it('GET /sandbox/banks lists each', async () => {
    // act
    const reply = await request('GET', '/sandbox/banks');

    // assess
    const ids = reply.body.banks.map((bank: { bankId: string }) => bank.bankId);
    expect(ids).toEqual(
      expect.arrayContaining([
        'SANDBOX_COOLDOWN_LISTED',
        'SANDBOX_OTP_READS',
        'SANDBOX_OTP_INLINE',
        'SANDBOX_OTP_TWO_QUESTIONS',
      ]),
    );
  });
});

describe('SANDBOX_OTP_READS: questions on metadata and on the beneficiary list', () => {
  it.each([
    ['/v1/metadata/accounts/get', 'accountsMetadata'],
    ['/v1/payment/beneficiaries/get', 'beneficiaries'],
  ])('%s asks a one-time password, and the answer gives the result', async (path, field) => {
    // prepare
    const user = await createUser('SANDBOX_OTP_READS');

    // act
    const asked = await user.call(path, { sync: true });
    const done = await user.call(path, { sync: true, userInputs: answered(asked) });

    // assess
    expect(asked.body).toEqual({
      jobID: expect.any(String),
      success: true,
      status: 'user_input_required',
      userInputs: [{ id: 'otp', index: 0, query: expect.any(String), answer: '' }],
    });
    expect(done.body).toMatchObject({ jobID: asked.body.jobID, success: true, status: 'done' });
    expect(done.body[field]).toBeDefined();
  });
});

describe('SANDBOX_OTP_INLINE: a one-time password on the inline transfer', () => {
  it.each(['/v1/payment/transfer/create', '/v1/payment/transfer/autoflow'])(
    '%s asks, and the answer transfers once',
    async (path) => {
      // prepare
      const user = await createUser('SANDBOX_OTP_INLINE');
      const fields = { amount: 30, senderID: user.accountId, action: 'deposit', beneficiary: walletInline() };

      // act
      const asked = await user.call(path, fields);
      const done = await user.call(path, { ...fields, userInputs: answered(asked) });
      const { balance, transfers } = await stateOf(user);

      // assess
      expect(asked.body).toMatchObject({
        status: 'user_input_required',
        userInputs: [{ id: 'otp', index: 0 }],
      });
      expect(done.body).toMatchObject({ operationID: asked.body.operationID, status: 'done' });
      expect(balance).toBe(user.balance - 30);
      expect(transfers).toEqual([expect.objectContaining({ reference: done.body.reference, amount: 30 })]);
    },
  );
});

describe('SANDBOX_OTP_TWO_QUESTIONS: otp and secret_question at once', () => {
  it('asks both (indexes 0 and 1); one answered is asked again; both answered creates', async () => {
    // prepare
    const user = await createUser('SANDBOX_OTP_TWO_QUESTIONS');
    const create = (extra: Record<string, unknown> = {}) =>
      user.call('/v1/payment/beneficiaries/create', { sync: true, ...walletBeneficiary(), ...extra });

    // act
    const asked = await create();
    const half = await create({
      userInputs: answered(asked).map((input) => (input.id === 'otp' ? input : { ...input, answer: 'no' })),
    });
    const done = await create({ userInputs: answered(half) });

    // assess
    expect(asked.body.userInputs).toEqual([
      { id: 'otp', index: 0, query: expect.any(String), answer: '' },
      { id: 'secret_question', index: 1, query: expect.any(String), answer: '' },
    ]);
    expect(half.body).toMatchObject({ jobID: asked.body.jobID, status: 'user_input_required' });
    expect(done.body).toMatchObject({
      jobID: asked.body.jobID,
      status: 'done',
      reference: expect.any(String),
    });
  });
});

describe('a whole deposit on every new bank, answering every question it asks', () => {
  /** Runs a deposit to its end, answering each question with the same key; returns it and the questions. */
  async function depositAnswering(user: TestUser, amount: number) {
    const key = `new-bank-${randomUUID()}`;
    const started = await startDeposit(user, { amount }, key);
    const id: string = started.body.operationID;
    const asked: { step: string; ids: string[] }[] = [];
    for (;;) {
      const deposit = await depositWhen(
        user,
        id,
        (d) => d.status === 'done' || d.status === 'failed' || d.status === 'user_input_required',
        25_000,
      );
      if (deposit.status !== 'user_input_required') return { deposit, asked };
      asked.push({ step: deposit.step, ids: deposit.userInputs.map((input: { id: string }) => input.id) });
      if (asked.length > 6) throw new Error(`too many questions: ${JSON.stringify(asked)}`);
      const answer = await startDeposit(user, { amount, userInputs: otpAnswer(deposit) }, key);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      await depositWhen(
        user,
        id,
        (d) => d.status !== 'user_input_required' || d.updatedAt !== deposit.updatedAt,
      );
    }
  }

  it.each([
    ['SANDBOX_COOLDOWN_LISTED', []],
    [
      'SANDBOX_OTP_READS',
      // The metadata, the list before the creation, and the list after it (the beneficiary's id
      // comes from the list, never from the creation's reference): each asks.
      [
        { step: 'resolve-bank', ids: ['otp'] },
        { step: 'ensure-beneficiary', ids: ['otp'] },
        { step: 'ensure-beneficiary', ids: ['otp'] },
      ],
    ],
    ['SANDBOX_OTP_INLINE', [{ step: 'transfer', ids: ['otp'] }]],
    // Hides the new beneficiary until its cool-down ends, and asks on its list: the look-up after
    // the cool-down asks, at ensure-beneficiary (not at wait-cooldown), and the caller's answer
    // resumes it there.
    ['SANDBOX_COOLDOWN_OTP_LIST', [{ step: 'ensure-beneficiary', ids: ['otp'] }]],
    [
      'SANDBOX_OTP_TWO_QUESTIONS',
      [
        { step: 'ensure-beneficiary', ids: ['otp', 'secret_question'] },
        { step: 'transfer', ids: ['otp', 'secret_question'] },
      ],
    ],
  ])('%s: the deposit is done, one transfer in the ledger', async (bankId, questions) => {
    // prepare
    const user = await createUser(bankId);

    // act
    const { deposit, asked } = await depositAnswering(user, 42.5);
    const { balance, transfers } = await stateOf(user);

    // assess
    expect(deposit, JSON.stringify(deposit)).toMatchObject({ status: 'done', reference: expect.any(String) });
    expect(asked).toEqual(questions);
    expect(transfers).toEqual([expect.objectContaining({ reference: deposit.reference, amount: 42.5 })]);
    expect(balance).toBe(user.balance - 42.5);
  });
});
