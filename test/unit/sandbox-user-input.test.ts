/**
 * User input (SANDBOX_OTP asks a one-time password on beneficiary creation, transfers and card
 * balance): a beneficiary creation that asks, and two answers racing for the same waiting transfer.
 * A transfer that asks, and every way its answer is refused:
 * `sandbox-user-input-transfers.test.ts`. In process: the sandbox's routes composed as their
 * handlers are, over its in-memory fake store (the sanctioned stand-in for its table) and a manual
 * clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import { createUser, walletBeneficiary } from '../support/in-process-sandbox.ts';
import {
  answered,
  answerTransfer,
  askedTransfer,
  BENEFICIARY_CREATE,
  givenOtpUser,
  OTP,
  otpQuestion,
  stateOf,
} from '../support/sandbox-user-input.ts';

describe('beneficiary creation that asks for an OTP', () => {
  it('asks for the OTP, then creates the beneficiary when the same request carries the answer', async () => {
    // prepare
    const user = await createUser('SANDBOX_OTP');

    // act
    const asked = await user.call(BENEFICIARY_CREATE, { sync: true, ...walletBeneficiary() });
    const done = await user.call(BENEFICIARY_CREATE, {
      sync: true,
      ...walletBeneficiary(),
      jobID: asked.body.jobID,
      userInputs: answered(asked, OTP),
    });
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });

    // assess
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({
      jobID: expect.stringMatching(/\S/),
      success: true,
      status: 'user_input_required',
      userInputs: [otpQuestion],
    });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      jobID: asked.body.jobID,
      success: true,
      status: 'done',
      reference: expect.stringMatching(/\S/),
    });
    expect(listed.body.beneficiaries).toEqual([
      expect.objectContaining({ id: expect.any(String), name: walletBeneficiary().name }),
    ]);
  });
  it('rule 1: the repeated request with userInputs and without the jobID answers the waiting creation', async () => {
    // prepare
    const user = await createUser('SANDBOX_OTP');
    const asked = await user.call(BENEFICIARY_CREATE, { sync: true, ...walletBeneficiary() });

    // act
    const withoutId = await user.call(BENEFICIARY_CREATE, {
      sync: true,
      ...walletBeneficiary(),
      userInputs: answered(asked, OTP),
    });
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });

    // assess
    expect(withoutId.status).toBe(200);
    expect(withoutId.body).toEqual({
      jobID: asked.body.jobID,
      success: true,
      status: 'done',
      reference: expect.stringMatching(/\S/),
    });
    // Listed under the bank's id, not the creation's reference (a receipt number).
    expect(listed.body.beneficiaries).toEqual([expect.objectContaining({ id: expect.any(String) })]);
    expect(listed.body.beneficiaries[0].id).not.toBe(withoutId.body.reference);
  });
});

describe('two answers racing for the same waiting transfer', () => {
  it('lets exactly one answer transfer, every time (5 rounds, fresh users)', async () => {
    for (let round = 0; round < 5; round += 1) {
      // prepare
      const { user, fields } = await givenOtpUser();
      const before = await stateOf(user);
      const asked = await askedTransfer(user, fields);

      // act
      const replies = await Promise.all([
        answerTransfer(user, fields, asked, OTP),
        answerTransfer(user, fields, asked, OTP),
      ]);
      const after = await stateOf(user);

      // assess
      const done = replies.filter((reply) => reply.status === 200 && reply.body.status === 'done');
      const refused = replies.filter((reply) => reply !== done[0]);
      expect(done, `round ${round}: ${JSON.stringify(replies)}`).toHaveLength(1);
      expect(refused, `round ${round}`).toHaveLength(1);
      expect(refused[0]?.body.type, `round ${round}: ${JSON.stringify(refused[0])}`).toMatch(
        /^(INVALID_OPERATION_ID|OPERATION_IN_PROGRESS)$/,
      );
      expect(refused[0]?.status, `round ${round}`).toBe(
        refused[0]?.body.type === 'INVALID_OPERATION_ID' ? 404 : 409,
      );
      expect(after.transfers, `round ${round}`).toHaveLength(1);
      expect(after.balance, `round ${round}`).toBe(before.balance - 250);
    }
  });
});
