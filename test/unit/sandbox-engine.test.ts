/**
 * The sandbox's operation engine over the in-memory store and a manual clock: one operation at a
 * time per connection (and the take-over of an expired lock), operations waiting for a one-time
 * password (answered, raced, expired). Operations sent with `sync: false`:
 * `sandbox-engine-async.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { createBeneficiary, listBeneficiaries } from '#shared/sandbox/operations/beneficiaries';
import { getMetadata } from '#shared/sandbox/operations/metadata';
import { getOperation } from '#shared/sandbox/operations/operation-get';
import { createTransfer } from '#shared/sandbox/operations/transfers';
import { givenSandbox, walletBeneficiary } from '../support/given-sandbox.ts';
import {
  answered,
  failed,
  GatedClock,
  givenOtpBeneficiary,
  inputTtlMs,
  lockMs,
  OTP,
} from '../support/sandbox-engine.ts';

describe('one operation at a time on a connection', () => {
  it('refuses a second operation while a slow one holds the connection, and frees it after', async () => {
    // prepare
    const clock = new GatedClock();
    const { createUser } = givenSandbox({ clock });
    // A bank that carries operations out at once: the only sleep is the request's latency.
    const user = await createUser('SANDBOX_BENEFICIARY', { asyncDelaySeconds: 0 });
    const slow = user.call(getMetadata, { sync: true }, { headers: { 'x-sandbox-latency-ms': '500' } });
    await clock.sleeping();

    // act
    const meanwhile = await user.call(listBeneficiaries, { sync: true });
    clock.wake();
    const first = await slow;
    const afterwards = await user.call(listBeneficiaries, { sync: true });

    // assess
    expect(meanwhile).toEqual({ status: 409, body: failed('OPERATION_IN_PROGRESS') });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: true, status: 'done', accountsMetadata: expect.any(Object) });
    expect(afterwards).toEqual({
      status: 200,
      body: { jobID: expect.any(String), success: true, status: 'done', beneficiaries: [] },
    });
  });

  it('takes over the lock of an operation that died holding it, once the lock has expired', async () => {
    // prepare
    const { store, clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY');
    const diedAt = clock.now();
    await store.acquireLock(user.connectionId, 'op_died', diedAt + lockMs, diedAt);

    // act
    const whileHeld = await user.call(getMetadata, { sync: true });
    clock.advance(lockMs - 1);
    const justBefore = await user.call(getMetadata, { sync: true });
    clock.advance(1);
    const afterExpiry = await user.call(getMetadata, { sync: true });
    const connection = await store.getConnection(user.connectionId);

    // assess
    expect(whileHeld).toEqual({ status: 409, body: failed('OPERATION_IN_PROGRESS') });
    expect(justBefore).toEqual({ status: 409, body: failed('OPERATION_IN_PROGRESS') });
    expect(afterExpiry.status).toBe(200);
    expect(afterExpiry.body).toMatchObject({ success: true, status: 'done' });
    expect(connection?.lockOperationId).toBeUndefined();
  });
});

describe('an operation waiting for user input', () => {
  it('holds the connection while it waits, then transfers once when the right OTP comes', async () => {
    // prepare
    const { store, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP');
    const receiverID = await givenOtpBeneficiary(user);
    const fields = { sync: true, amount: 250, senderID: user.accountId, receiverID };
    const asked = await user.call(createTransfer, fields);
    const operationID = String(asked.body.operationID);

    // act
    const meanwhile = await user.call(getMetadata, { sync: true });
    const done = await user.call(createTransfer, {
      ...fields,
      operationID,
      userInputs: answered(asked, OTP),
    });
    const again = await user.call(createTransfer, {
      ...fields,
      operationID,
      userInputs: answered(asked, OTP),
    });
    const { accounts, transfers } = await store.getUserAssets(user.connectionId);

    // assess
    expect(asked).toEqual({
      status: 200,
      body: {
        operationID: expect.any(String),
        success: true,
        status: 'user_input_required',
        userInputs: [{ id: 'otp', index: 0, query: expect.any(String), answer: '' }],
      },
    });
    expect(meanwhile).toEqual({ status: 409, body: failed('OPERATION_IN_PROGRESS') });
    expect(done).toEqual({
      status: 200,
      body: { operationID, success: true, status: 'done', reference: expect.any(String) },
    });
    expect(again).toEqual({ status: 404, body: failed('INVALID_OPERATION_ID') });
    expect(accounts[0]?.balanceMinor).toBe(10_000_000 - 25_000);
    expect(transfers).toEqual([expect.objectContaining({ operationId: operationID, amountMinor: 25_000 })]);
    expect(await store.getOperation(operationID)).toMatchObject({ state: 'final', response: done.body });
  });

  it('asks again after a wrong OTP, and fails the operation on the third: nothing debited, the connection free again', async () => {
    // prepare
    const { store, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP');
    const receiverID = await givenOtpBeneficiary(user);
    const fields = { sync: true, amount: 250, senderID: user.accountId, receiverID };
    const asked = await user.call(createTransfer, fields);
    const operationID = String(asked.body.operationID);
    const wrongAnswer = { ...fields, operationID, userInputs: answered(asked, '000000') };

    // act
    const first = await user.call(createTransfer, wrongAnswer);
    const second = await user.call(createTransfer, wrongAnswer);
    const wrong = await user.call(createTransfer, wrongAnswer);
    const next = await user.call(getMetadata, { sync: true });

    // assess
    const askedAgain = (left: string) => ({
      status: 200,
      body: {
        operationID,
        success: true,
        status: 'user_input_required',
        userInputs: [
          expect.objectContaining({ id: 'otp', index: 0, answer: '', query: expect.stringContaining(left) }),
        ],
      },
    });
    expect(first).toEqual(askedAgain('2 tries left'));
    expect(second).toEqual(askedAgain('1 try left'));
    expect(wrong).toEqual({ status: 400, body: failed('INVALID_MFA', { operationID }) });
    expect(next.status).toBe(200);
    expect((await store.getUserAssets(user.connectionId)).transfers).toEqual([]);
  });

  it('lets exactly one of two racing answers transfer: the write requires the operation to await input', async () => {
    // prepare
    const { store, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP');
    const receiverID = await givenOtpBeneficiary(user);
    const fields = { sync: true, amount: 250, senderID: user.accountId, receiverID };
    const asked = await user.call(createTransfer, fields);
    const answer = {
      ...fields,
      operationID: String(asked.body.operationID),
      userInputs: answered(asked, OTP),
    };

    // act
    const replies = await Promise.all([user.call(createTransfer, answer), user.call(createTransfer, answer)]);
    const { accounts, transfers } = await store.getUserAssets(user.connectionId);

    // assess
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 404]);
    expect(replies.find((reply) => reply.status === 404)?.body).toEqual(failed('INVALID_OPERATION_ID'));
    expect(transfers).toHaveLength(1);
    expect(accounts[0]?.balanceMinor).toBe(10_000_000 - 25_000);
  });

  it('expires once the input TTL has passed: read back and answered as USER_INPUT_EXPIRED, nothing debited', async () => {
    // prepare
    const { store, clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP');
    const receiverID = await givenOtpBeneficiary(user);
    const fields = { sync: true, amount: 250, senderID: user.accountId, receiverID };
    const asked = await user.call(createTransfer, fields);
    const operationID = String(asked.body.operationID);

    // act
    clock.advance(inputTtlMs - 1);
    const justBefore = await user.call(getOperation, { operationID });
    clock.advance(1);
    const readBack = await user.call(getOperation, { operationID });
    const late = await user.call(createTransfer, {
      ...fields,
      operationID,
      userInputs: answered(asked, OTP),
    });
    const next = await user.call(createTransfer, fields);

    // assess
    expect(justBefore.body).toMatchObject({ operationID, status: 'user_input_required' });
    expect(readBack).toEqual({ status: 200, body: failed('USER_INPUT_EXPIRED', { operationID }) });
    expect(late).toEqual({ status: 410, body: failed('USER_INPUT_EXPIRED', { operationID }) });
    expect(await store.getOperation(operationID)).toMatchObject({ state: 'final', httpStatus: 410 });
    expect((await store.getUserAssets(user.connectionId)).transfers).toEqual([]);
    expect(next.body).toMatchObject({ status: 'user_input_required' });
    expect(next.body.operationID).not.toBe(operationID);
  });

  it("uses the user's own input TTL when they have one", async () => {
    // prepare
    const { clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP', { inputTtlSeconds: 5 });
    const asked = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
    const jobID = String(asked.body.jobID);

    // act
    clock.advance(5_000);
    const late = await user.call(createBeneficiary, {
      sync: true,
      ...walletBeneficiary(),
      jobID,
      userInputs: answered(asked, OTP),
    });

    // assess
    expect(late).toEqual({ status: 410, body: failed('USER_INPUT_EXPIRED', { jobID }) });
  });
});
