/**
 * Deposits that cannot succeed, over real HTTP against the local stack: each one ends failed with the
 * refusal's type and a message, at step `completed`, and no money moves at the sandbox.
 */
import { describe, expect, it } from 'vitest';
import {
  depositWhen,
  otpAnswer,
  readDeposit,
  startDeposit,
  stepsOf,
  transferSteps,
} from '../support/deposits.ts';
import { createUser, type TestUser } from '../support/sandbox.ts';

/** The failed deposit as its owner reads it: type, a message, the end of the flow. */
function failedDeposit(type: string) {
  return expect.objectContaining({
    success: false,
    status: 'failed',
    step: 'completed',
    type,
    msg: expect.stringMatching(/\S/),
  });
}

/** The user's account at the sandbox: no transfer, the opening balance untouched. */
async function expectNoMoneyMoved(user: TestUser) {
  const bank = await user.state();
  expect(bank.transfers).toEqual([]);
  expect(bank.accounts[0].balance).toBe(user.balance);
}

describe('a deposit that fails', () => {
  it('with credentials the provider refuses: UNAUTHORIZED', async () => {
    // prepare: the deposits API cannot check secrets itself, so it accepts the request
    const user = await createUser('SANDBOX_BENEFICIARY');
    const impostor: TestUser = { ...user, userSecret: `${user.userSecret}-wrong` };

    // act
    const started = await startDeposit(impostor, { amount: 20 });
    const ended = await depositWhen(impostor, started.body.operationID);
    const asRealOwner = await readDeposit(user, started.body.operationID);

    // assess
    expect(started.status).toBe(202);
    expect(ended).toEqual(failedDeposit('UNAUTHORIZED'));
    expect(stepsOf(ended)).toEqual(['resolve-bank', 'completed']);
    // The read is keyed by the secret it was started with: the real secret does not find it.
    expect(asRealOwner.status).toBe(404);
    await expectNoMoneyMoved(user);
  });

  it('below the bank minimum: AMOUNT_BELOW_MINIMUM, before any beneficiary is created', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const started = await startDeposit(user, { amount: 5 });
    const ended = await depositWhen(user, started.body.operationID);
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });

    expect(started.status).toBe(202);
    expect(ended).toEqual(failedDeposit('AMOUNT_BELOW_MINIMUM'));
    expect(ended.msg).toBe("The amount is below the bank's minimum for this transfer");
    expect(stepsOf(ended)).toEqual(['resolve-bank', 'completed']);
    expect(listed.status).toBe(200);
    expect(listed.body.beneficiaries).toEqual([]);
    await expectNoMoneyMoved(user);
  });

  it('above the balance of the account: INSUFFICIENT_BALANCE', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY', { balance: 50 });

    const started = await startDeposit(user, { amount: 60 });
    const ended = await depositWhen(user, started.body.operationID);

    expect(user.balance).toBe(50);
    expect(ended).toEqual(failedDeposit('INSUFFICIENT_BALANCE'));
    expect(stepsOf(ended)).toEqual(['resolve-bank', 'ensure-beneficiary', ...transferSteps, 'completed']);
    await expectNoMoneyMoved(user);
  });

  it('with a wrong one-time password three times (the bank asks again twice): INVALID_MFA', async () => {
    const user = await createUser('SANDBOX_OTP');
    const key = `wrong-otp-${user.connectionID}`;
    const started = await startDeposit(user, { amount: 25 }, key);
    const id: string = started.body.operationID;
    const asked = await depositWhen(user, id, (d) => d.status !== 'initialized');

    const answers = [];
    const questions = [asked];
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const question = questions.at(-1) ?? asked;
      answers.push(await startDeposit(user, { amount: 25, userInputs: otpAnswer(question, '000000') }, key));
      if (attempt < 3) {
        questions.push(
          await depositWhen(
            user,
            id,
            (d) => d.status === 'user_input_required' && d.updatedAt !== question.updatedAt,
          ),
        );
      }
    }
    const ended = await depositWhen(user, id);

    expect(asked).toMatchObject({ status: 'user_input_required', step: 'ensure-beneficiary' });
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers.map((answer) => answer.body.operationID)).toEqual([id, id, id]);
    expect(questions.slice(1).map((question) => question.userInputs[0].query)).toEqual([
      expect.stringContaining('2 tries left'),
      expect.stringContaining('1 try left'),
    ]);
    expect(ended).toEqual(failedDeposit('INVALID_MFA'));
    expect(ended.userInputs).toBeUndefined();
    await expectNoMoneyMoved(user);
  });

  it('when nobody answers the bank in time: INPUT_EXPIRED, and a late answer does not revive it', async () => {
    const user = await createUser('SANDBOX_OTP');
    const key = `unanswered-${user.connectionID}`;
    const started = await startDeposit(user, { amount: 25 }, key);
    const asked = await depositWhen(user, started.body.operationID, (d) => d.status !== 'initialized');

    const ended = await depositWhen(user, started.body.operationID, undefined, 20_000);
    const lateAnswer = await startDeposit(user, { amount: 25, userInputs: otpAnswer(asked) }, key);

    expect(asked.status).toBe('user_input_required');
    expect(ended).toEqual(failedDeposit('INPUT_EXPIRED'));
    // It waited at least INPUT_TTL_SECONDS (6 s) after the question.
    expect(Date.parse(ended.updatedAt)).toBeGreaterThanOrEqual(Date.parse(asked.updatedAt) + 6_000);
    expect(lateAnswer.status).toBe(200);
    expect(lateAnswer.body).toMatchObject({ operationID: started.body.operationID, status: 'failed' });
    await expectNoMoneyMoved(user);
  }, 30_000);

  it('into a wallet account in a currency the bank does not transfer: CURRENCY_NOT_SUPPORTED', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const started = await startDeposit(user, { amount: 12.345, walletAccountID: 'wallet-kwd' });
    const ended = await depositWhen(user, started.body.operationID);

    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ currency: 'KWD', walletAccountID: 'wallet-kwd' });
    expect(ended).toEqual(failedDeposit('CURRENCY_NOT_SUPPORTED'));
    expect(stepsOf(ended)).toEqual(['resolve-bank', 'completed']);
    await expectNoMoneyMoved(user);
  });
});
