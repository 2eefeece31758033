/**
 * User input: a transfer that asks for a one-time password, the repeated request that answers it,
 * and every way an answer is refused (wrong, empty, expired, mismatched, foreign, already used). In
 * process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import { clock, failed } from '../support/in-process-sandbox.ts';
import {
  answered,
  answerTransfer,
  askedTransfer,
  eventuallyDone,
  failedOperation,
  givenOtpUser,
  metadata,
  OTP,
  otpQuestion,
  stateOf,
  TRANSFER,
} from '../support/sandbox-user-input.ts';

describe('transfer that asks for an OTP', () => {
  it('holds the connection while it waits, then transfers exactly once when answered', async () => {
    // prepare
    const { user, fields } = await givenOtpUser();
    const before = await stateOf(user);

    // act
    const asked = await askedTransfer(user, fields);
    const meanwhile = await metadata(user);
    const done = await answerTransfer(user, fields, asked, OTP);
    const afterDone = await stateOf(user);
    const again = await answerTransfer(user, fields, asked, OTP);
    const afterAgain = await stateOf(user);

    // assess
    expect(asked.body).toEqual({
      operationID: expect.stringMatching(/\S/),
      success: true,
      status: 'user_input_required',
      userInputs: [otpQuestion],
    });
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.body).toEqual(failed('OPERATION_IN_PROGRESS'));
    expect(done.status).toBe(200);
    expect(done.body).toEqual({
      operationID: asked.body.operationID,
      success: true,
      status: 'done',
      reference: expect.stringMatching(/\S/),
    });
    expect(afterDone.balance).toBe(before.balance - 250);
    expect(afterDone.transfers).toEqual([
      expect.objectContaining({ reference: done.body.reference, operationID: asked.body.operationID }),
    ]);
    expect(again.status).toBe(404);
    expect(again.body).toEqual(failed('INVALID_OPERATION_ID'));
    expect(afterAgain.balance).toBe(afterDone.balance);
    expect(afterAgain.transfers).toHaveLength(1);
  });

  it('asks again after a wrong OTP, up to 3 tries; the third wrong one fails INVALID_MFA, nothing debited', async () => {
    // prepare
    const { user, fields } = await givenOtpUser();
    const before = await stateOf(user);
    const asked = await askedTransfer(user, fields);

    // act
    const first = await answerTransfer(user, fields, asked, '000000');
    const meanwhile = await metadata(user);
    const second = await answerTransfer(user, fields, asked, '');
    const wrong = await answerTransfer(user, fields, asked, '654321');
    const after = await stateOf(user);
    const meta = await metadata(user);
    const retried = await answerTransfer(user, fields, asked, OTP);

    // assess
    const askedAgain = (left: string) => ({
      operationID: asked.body.operationID,
      success: true,
      status: 'user_input_required',
      userInputs: [{ ...otpQuestion, query: expect.stringContaining(left) }],
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual(askedAgain('2 tries left'));
    expect(meanwhile.body).toEqual(failed('OPERATION_IN_PROGRESS'));
    expect(second.status).toBe(200);
    expect(second.body).toEqual(askedAgain('1 try left'));
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual(failedOperation('INVALID_MFA', 'operationID', asked.body.operationID));
    expect(after.balance).toBe(before.balance);
    expect(after.transfers).toEqual([]);
    expect(meta.status).toBe(200);
    expect(meta.body).toMatchObject({ success: true, status: 'done' });
    expect(retried.status).toBe(404);
    expect(retried.body).toEqual(failed('INVALID_OPERATION_ID'));
    expect((await stateOf(user)).transfers).toEqual([]);
  });

  it('a right OTP after a wrong one transfers once', async () => {
    // prepare
    const { user, fields } = await givenOtpUser();
    const before = await stateOf(user);
    const asked = await askedTransfer(user, fields);

    // act
    const again = await answerTransfer(user, fields, asked, '000000');
    const done = await answerTransfer(user, fields, again, OTP);

    // assess
    expect(again.body).toMatchObject({ status: 'user_input_required' });
    expect(done.body).toMatchObject({ operationID: asked.body.operationID, status: 'done' });
    expect((await stateOf(user)).balance).toBe(before.balance - 250);
  });

  it('rule 1: userInputs without the operation id answer the waiting transfer; the id without userInputs is BAD_REQUEST', async () => {
    // prepare
    const { user, fields } = await givenOtpUser();
    const asked = await askedTransfer(user, fields);

    // act
    const withoutInputs = await user.call(TRANSFER, { ...fields, operationID: asked.body.operationID });
    const withoutId = await user.call(TRANSFER, { ...fields, userInputs: answered(asked, OTP) });

    // assess
    expect(withoutInputs.status).toBe(400);
    expect(withoutInputs.body).toEqual(failed('BAD_REQUEST'));
    expect(withoutInputs.body.details).toEqual([expect.stringMatching(/^userInputs: /)]);
    expect(withoutId.status).toBe(200);
    expect(withoutId.body).toMatchObject({ operationID: asked.body.operationID, status: 'done' });
    expect((await stateOf(user)).transfers).toHaveLength(1);
  });

  it('rule 1: userInputs with nothing waiting on the connection are INVALID_OPERATION_ID, nothing debited', async () => {
    // prepare
    const { user, fields } = await givenOtpUser();

    // act
    const reply = await user.call(TRANSFER, {
      ...fields,
      userInputs: [{ id: 'otp', index: 0, query: 'q', answer: OTP }],
    });

    // assess
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(failed('INVALID_OPERATION_ID'));
    expect((await stateOf(user)).transfers).toEqual([]);
  });

  it('an empty userInputs list answers nothing: BAD_REQUEST naming userInputs, with or without an operation waiting', async () => {
    // prepare: one user with nothing waiting, one whose transfer waits for its password
    const idle = await givenOtpUser();
    const waiting = await givenOtpUser();
    const asked = await askedTransfer(waiting.user, waiting.fields);

    // act
    const withNothingWaiting = await idle.user.call(TRANSFER, { ...idle.fields, userInputs: [] });
    const withOneWaiting = await waiting.user.call(TRANSFER, {
      ...waiting.fields,
      operationID: asked.body.operationID,
      userInputs: [],
    });
    // The empty list cost the waiting transfer none of its tries: the right answer still transfers.
    const answeredRightly = await waiting.user.call(TRANSFER, {
      ...waiting.fields,
      userInputs: answered(asked, OTP),
    });

    // assess
    for (const reply of [withNothingWaiting, withOneWaiting]) {
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(failed('BAD_REQUEST'));
      expect(reply.body.details).toEqual([expect.stringMatching(/^userInputs: /)]);
    }
    expect((await stateOf(idle.user)).transfers).toEqual([]);
    expect(answeredRightly.body).toMatchObject({ operationID: asked.body.operationID, status: 'done' });
    expect((await stateOf(waiting.user)).transfers).toHaveLength(1);
  });

  it("refuses the id of another user's waiting operation, which stays answerable by its owner", async () => {
    // prepare
    const owner = await givenOtpUser();
    const stranger = await givenOtpUser();
    const asked = await askedTransfer(owner.user, owner.fields);

    // act
    const stolen = await answerTransfer(stranger.user, stranger.fields, asked, OTP);
    const byOwner = await answerTransfer(owner.user, owner.fields, asked, OTP);

    // assess
    expect(stolen.status).toBe(404);
    expect(stolen.body).toEqual(failed('INVALID_OPERATION_ID'));
    expect((await stateOf(stranger.user)).transfers).toEqual([]);
    expect(byOwner.body).toMatchObject({ operationID: asked.body.operationID, status: 'done' });
  });

  it('refuses a repeated request that differs (OPERATION_MISMATCH) and keeps the operation waiting', async () => {
    // prepare
    const { user, fields } = await givenOtpUser();
    const before = await stateOf(user);
    const asked = await askedTransfer(user, fields);

    // act
    const changed = await answerTransfer(user, { ...fields, amount: 999 }, asked, OTP);
    const afterChanged = await stateOf(user);
    const done = await answerTransfer(user, fields, asked, OTP);

    // assess
    expect(changed.status).toBe(409);
    expect(changed.body).toEqual(failed('OPERATION_MISMATCH'));
    expect(afterChanged.balance).toBe(before.balance);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ operationID: asked.body.operationID, status: 'done' });
    expect((await stateOf(user)).balance).toBe(before.balance - 250);
  });

  it("refuses a transfer's operation id answered on the card balance endpoint", async () => {
    // prepare
    const { user, fields } = await givenOtpUser();
    const asked = await askedTransfer(user, fields);

    // act
    const elsewhere = await user.call('/v2/data/balance/get', {
      cardID: user.cardId,
      operationID: asked.body.operationID,
      userInputs: answered(asked, OTP),
    });
    const done = await answerTransfer(user, fields, asked, OTP);

    // assess
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toEqual(failed('INVALID_OPERATION_ID'));
    expect(done.body).toMatchObject({ operationID: asked.body.operationID, status: 'done' });
  });

  it('expires an unanswered operation (USER_INPUT_EXPIRED), debits nothing, and frees the connection', async () => {
    // prepare
    const { user, fields } = await givenOtpUser({ inputTtlSeconds: 1 });
    const before = await stateOf(user);
    const askedAt = clock.now();
    const asked = await askedTransfer(user, fields);
    // The waiting operation holds the connection until its input expires: poll until it lets go.
    const freed = await eventuallyDone(() => metadata(user), 5_000);
    const waitedMs = clock.now() - askedAt;

    // act
    const readBack = await user.call('/v1/operation/get', { operationID: asked.body.operationID });
    const late = await answerTransfer(user, fields, asked, OTP);
    const after = await stateOf(user);
    const next = await askedTransfer(user, fields);
    const nextDone = await answerTransfer(user, fields, next, OTP);

    // assess
    expect(freed.status).toBe(200);
    expect(waitedMs).toBeGreaterThanOrEqual(1_000);
    expect(readBack.body).toMatchObject({
      operationID: asked.body.operationID,
      status: 'failed',
      type: 'USER_INPUT_EXPIRED',
    });
    expect(late.status).toBe(410);
    expect(late.body).toEqual(failedOperation('USER_INPUT_EXPIRED', 'operationID', asked.body.operationID));
    expect(after.balance).toBe(before.balance);
    expect(after.transfers).toEqual([]);
    expect(next.body.operationID).not.toBe(asked.body.operationID);
    expect(nextDone.body).toMatchObject({ operationID: next.body.operationID, status: 'done' });
    expect((await stateOf(user)).transfers).toHaveLength(1);
  });
});
