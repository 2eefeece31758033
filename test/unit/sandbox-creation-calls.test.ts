/**
 * The sandbox records each call of a user's beneficiary creation that reached the bank's creation,
 * with what the bank did (created, asked, refused and why), and `/sandbox/users/get` answers them: a
 * test counts the creations the provider saw. A call stopped before the bank saw it, or whose answers
 * were refused, is not one.
 */
import { describe, expect, it } from 'vitest';
import { SandboxUserResponse } from '#shared/sandbox/admin-schemas';
import type { HttpAnswer } from '#shared/sandbox/answer';
import { createBeneficiary } from '#shared/sandbox/operations/beneficiaries';
import {
  givenSandbox,
  type SandboxTestUser,
  testAppSecret,
  walletBeneficiary,
} from '../support/given-sandbox.ts';

const CREATE = '/v1/payment/beneficiaries/create';

/** Every question of a `user_input_required` answer, answered with `answer`. */
function answered(asked: HttpAnswer, answer: string) {
  const inputs = asked.body.userInputs as { id: string; index: number; query: string }[];
  return inputs.map((input) => ({ ...input, answer }));
}

async function creationsOf(sandbox: ReturnType<typeof givenSandbox>['sandbox'], user: SandboxTestUser) {
  const state = await sandbox.administration.getUser({
    appSecret: testAppSecret,
    connectionID: user.connectionId,
  });
  return SandboxUserResponse.parse(state.body).beneficiaryCreations;
}

describe("the sandbox's record of beneficiary creation calls", () => {
  it('answers the call that asked, the answered one that created, and a repeat refused', async () => {
    // prepare
    const { sandbox, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP');
    const asked = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
    const done = await user.call(createBeneficiary, {
      sync: true,
      ...walletBeneficiary(),
      jobID: String(asked.body.jobID),
      userInputs: answered(asked, '123456'),
    });

    // act
    const again = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
    const calls = await creationsOf(sandbox, user);

    // assess
    expect(done.body).toMatchObject({ status: 'done' });
    expect(again.body).toMatchObject({ type: 'BENEFICIARY_ALREADY_EXISTS' });
    const iban = walletBeneficiary().iban;
    const accountNumber = walletBeneficiary().accountNumber;
    expect(calls).toEqual([
      { jobID: asked.body.jobID, at: expect.any(String), iban, accountNumber, outcome: 'asked' },
      {
        jobID: asked.body.jobID,
        at: expect.any(String),
        iban,
        accountNumber,
        outcome: 'created',
        beneficiaryID: expect.stringMatching(/^ben_/),
      },
      {
        jobID: again.body.jobID,
        at: expect.any(String),
        iban,
        accountNumber,
        outcome: 'refused',
        type: 'BENEFICIARY_ALREADY_EXISTS',
      },
    ]);
  });

  it('counts a creation whose answer a fault lost (after), not one a fault stopped (before)', async () => {
    // prepare
    const { sandbox, store, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY');
    const fault = (phase: string) => ({
      path: CREATE,
      headers: { 'x-sandbox-fault': 'error', 'x-sandbox-fault-phase': phase },
    });

    // act
    const stopped = await user.call(
      createBeneficiary,
      { sync: true, ...walletBeneficiary() },
      fault('before'),
    );
    const lost = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() }, fault('after'));
    const calls = await creationsOf(sandbox, user);

    // assess
    expect([stopped.status, lost.status]).toEqual([500, 500]);
    const [created] = await store.listBeneficiaries(user.connectionId);
    expect(calls).toEqual([expect.objectContaining({ outcome: 'created', beneficiaryID: created?.id })]);
  });

  it('records a refusal of the request with its type, and no call whose answers were refused', async () => {
    // prepare
    const { sandbox, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP');
    const invalid = walletBeneficiary({ iban: 'AE000000' });

    // act
    const refused = await user.call(createBeneficiary, { sync: true, ...invalid });
    const asked = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
    const wrong = await user.call(createBeneficiary, {
      sync: true,
      ...walletBeneficiary(),
      jobID: String(asked.body.jobID),
      userInputs: answered(asked, '000000'),
    });
    const calls = await creationsOf(sandbox, user);

    // assess
    expect(refused.status).toBe(400);
    expect(wrong.body).toMatchObject({ status: 'user_input_required' });
    expect(calls.map(({ outcome, type, iban }) => ({ outcome, type, iban }))).toEqual([
      { outcome: 'refused', type: 'INVALID_IBAN', iban: 'AE000000' },
      { outcome: 'asked', type: undefined, iban: walletBeneficiary().iban },
    ]);
  });
});
