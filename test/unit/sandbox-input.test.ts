/**
 * Questions, answers and lifetimes in the sandbox's domain, over the in-memory store and a manual
 * clock: rule 1 (answers find the operation waiting on the connection, its id sent or not), a wrong
 * answer asked again up to three tries, two questions at once, records that keep no copies of lists,
 * the beneficiary limit, and applications and users that expire.
 */
import { describe, expect, it } from 'vitest';
import { inputLimits } from '#shared/provider/interface/limits';
import type { HttpAnswer } from '#shared/sandbox/answer';
import { createBeneficiary, listBeneficiaries } from '#shared/sandbox/operations/beneficiaries';
import { getMetadata } from '#shared/sandbox/operations/metadata';
import { getOperation } from '#shared/sandbox/operations/operation-get';
import { SANDBOX_LIFETIME_MS } from '#shared/sandbox/store';
import { asHttp, givenSandbox, walletBeneficiary } from '../support/given-sandbox.ts';

const OTP = '123456';

const failed = (type: string, fields: Record<string, unknown> = {}) =>
  expect.objectContaining({ success: false, status: 'failed', type, msg: expect.any(String), ...fields });

/** Every question of a `user_input_required` answer, answered with `answer` (by id). */
function answered(asked: HttpAnswer, answer: string | Record<string, string>) {
  const inputs = asked.body.userInputs as { id: string; index: number; query: string; answer: string }[];
  return inputs.map((input) => ({
    ...input,
    answer: typeof answer === 'string' ? answer : (answer[input.id] ?? ''),
  }));
}

describe('rule 1: a repeated request with userInputs answers the operation waiting on the connection', () => {
  it('without its id: the beneficiary is created by the answer, as with the id', async () => {
    // prepare
    const { store, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP');
    const asked = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });

    // act
    const done = await user.call(createBeneficiary, {
      sync: true,
      ...walletBeneficiary(),
      userInputs: answered(asked, OTP),
    });

    // assess
    expect(asked.body).toMatchObject({ status: 'user_input_required' });
    expect(done).toEqual({
      status: 200,
      body: { jobID: asked.body.jobID, success: true, status: 'done', reference: expect.any(String) },
    });
    expect(await store.listBeneficiaries(user.connectionId)).toHaveLength(1);
  });

  it('without an id and nothing waiting: INVALID_OPERATION_ID, nothing created', async () => {
    // prepare
    const { store, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP');

    // act
    const reply = await user.call(createBeneficiary, {
      sync: true,
      ...walletBeneficiary(),
      userInputs: [{ id: 'otp', index: 0, query: '', answer: OTP }],
    });

    // assess
    expect(reply).toEqual({ status: 404, body: failed('INVALID_OPERATION_ID') });
    expect(await store.listBeneficiaries(user.connectionId)).toEqual([]);
  });

  it('without an id, a request of another kind does not answer the waiting operation', async () => {
    // prepare
    const { createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP');
    const asked = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });

    // act
    const other = await user.call(getMetadata, { sync: true, userInputs: answered(asked, OTP) } as never);
    const stillWaiting = await user.call(getOperation, { jobID: String(asked.body.jobID) });

    // assess
    expect(other).toEqual({ status: 404, body: failed('INVALID_OPERATION_ID') });
    expect(stillWaiting.body).toMatchObject({ status: 'user_input_required' });
  });

  it('an id without userInputs is a bad request naming userInputs', async () => {
    // prepare
    const { createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP');
    const asked = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });

    // act
    const reply = await user.call(createBeneficiary, {
      sync: true,
      ...walletBeneficiary(),
      jobID: String(asked.body.jobID),
    });

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(failed('BAD_REQUEST', { details: [expect.stringMatching(/^userInputs: /)] }));
  });
});

describe('a wrong answer is asked again, up to three tries', () => {
  it('a right answer after a wrong one completes the operation', async () => {
    // prepare
    const { store, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP');
    const asked = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
    const jobID = String(asked.body.jobID);

    // act
    const again = await user.call(createBeneficiary, {
      sync: true,
      ...walletBeneficiary(),
      userInputs: answered(asked, '654321'),
    });
    const readBack = await user.call(getOperation, { jobID });
    const done = await user.call(createBeneficiary, {
      sync: true,
      ...walletBeneficiary(),
      jobID,
      userInputs: answered(again, OTP),
    });

    // assess
    expect(again.body).toMatchObject({ jobID, success: true, status: 'user_input_required' });
    expect(readBack.body).toEqual({
      ...again.body,
      opInfo: expect.objectContaining({ status: 'user_input_required', userInputs: again.body.userInputs }),
    });
    expect(done.body).toMatchObject({ jobID, status: 'done' });
    expect(await store.getOperation(jobID)).toMatchObject({ state: 'final' });
  });

  it('two wrong answers at once count once: the second finds the count moved', async () => {
    // prepare
    const { store, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP');
    const asked = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
    const wrong = { sync: true, ...walletBeneficiary(), userInputs: answered(asked, '000000') };

    // act
    const replies = await Promise.all([
      user.call(createBeneficiary, wrong),
      user.call(createBeneficiary, wrong),
    ]);

    // assess
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 404]);
    expect(await store.getOperation(String(asked.body.jobID))).toMatchObject({
      state: 'awaiting_input',
      wrongAnswers: 1,
    });
  });
});

describe('a bank that asks two questions at once', () => {
  it('asks otp and secret_question (indexes 0 and 1) and needs both answered', async () => {
    // prepare
    const { createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP_TWO_QUESTIONS');

    // act
    const asked = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
    const halfAnswered = await user.call(createBeneficiary, {
      sync: true,
      ...walletBeneficiary(),
      userInputs: answered(asked, { otp: OTP }),
    });
    const done = await user.call(createBeneficiary, {
      sync: true,
      ...walletBeneficiary(),
      userInputs: answered(asked, OTP),
    });

    // assess
    expect(asked.body.userInputs).toEqual([
      { id: 'otp', index: 0, query: expect.any(String), answer: '' },
      { id: 'secret_question', index: 1, query: expect.any(String), answer: '' },
    ]);
    expect(halfAnswered.body).toMatchObject({ status: 'user_input_required' });
    expect(done.body).toMatchObject({ status: 'done' });
  });
});

describe('records keep references, not copies of lists', () => {
  it("a list operation's record holds no beneficiaries; reading it back lists them as of its time", async () => {
    // prepare
    const { store, clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_COOLDOWN_LISTED');
    await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
    const listed = await user.call(listBeneficiaries, { sync: true });
    const jobID = String(listed.body.jobID);

    // act
    clock.advance(10_000);
    await user.call(createBeneficiary, {
      sync: true,
      ...walletBeneficiary({ iban: ibanFor('AE', '0339999888877776666'), name: 'Second' }),
    });
    const readBack = await user.call(getOperation, { jobID });

    // assess
    expect(listed.body.beneficiaries).toEqual([expect.objectContaining({ status: 'pending' })]);
    expect((await store.getOperation(jobID))?.response).not.toHaveProperty('beneficiaries');
    expect(readBack.body).toEqual({ ...listed.body, opInfo: expect.objectContaining({ status: 'done' }) });
  });

  it(`refuses the beneficiary after the ${inputLimits.beneficiariesPerUser}th with BENEFICIARY_LIMIT_REACHED`, async () => {
    // prepare
    const { store, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY');
    for (let index = 0; index < inputLimits.beneficiariesPerUser; index += 1) {
      const iban = ibanFor('AE', `033${String(index).padStart(16, '0')}`);
      const created = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary({ iban }) });
      expect(created.body.status).toBe('done');
    }

    // act
    const refused = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });

    // assess
    expect(refused).toEqual({ status: 422, body: failed('BENEFICIARY_LIMIT_REACHED') });
    expect(await store.listBeneficiaries(user.connectionId)).toHaveLength(inputLimits.beneficiariesPerUser);
  });
});

describe('applications and users expire', () => {
  it(`an application is refused ${SANDBOX_LIFETIME_MS / 86_400_000} days after it was created, and says so`, async () => {
    // prepare
    const { sandbox, clock } = givenSandbox();
    const created = await sandbox.administration.createApplication();
    const appSecret = String(created.body.appSecret);
    const newUser = () =>
      asHttp(sandbox.administration.createUser({ appSecret, bankId: 'SANDBOX_BENEFICIARY' }));

    // act
    clock.advance(SANDBOX_LIFETIME_MS - 1);
    const justBefore = await newUser();
    clock.advance(1);
    const after = await newUser();

    // assess
    expect(created.body.expiresAt).toBe(new Date(clock.now()).toISOString());
    expect(justBefore.status).toBe(201);
    expect(after).toEqual({ status: 401, body: failed('UNAUTHORIZED') });
  });

  it('a user is refused once its lifetime is over', async () => {
    // prepare
    const { clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    clock.advance(SANDBOX_LIFETIME_MS);
    const reply = await user.call(getMetadata, { sync: true });

    // assess
    expect(reply).toEqual({ status: 401, body: failed('UNAUTHORIZED') });
  });
});

/** A valid IBAN (ISO 13616 check digits) for a country and basic bank account number. */
function ibanFor(country: string, bban: string): string {
  const digits = [...`${bban}${country}00`]
    .map((char) => (/\d/.test(char) ? char : String(char.charCodeAt(0) - 55)))
    .join('');
  let remainder = 0;
  for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  return `${country}${String(98 - remainder).padStart(2, '0')}${bban}`;
}
