/**
 * The sandbox's operation engine over the in-memory store and a manual clock: one operation at a time
 * per connection (and the take-over of an expired lock), operations waiting for a one-time password
 * (answered, raced, expired), and operations sent with `sync: false`.
 */
import { describe, expect, it } from 'vitest';
import type { HttpAnswer } from '#shared/sandbox/answer';
import { createBeneficiary, listBeneficiaries } from '#shared/sandbox/operations/beneficiaries';
import { getMetadata } from '#shared/sandbox/operations/metadata';
import { getOperation } from '#shared/sandbox/operations/operation-get';
import { createTransfer } from '#shared/sandbox/operations/transfers';
import {
  givenSandbox,
  type SandboxTestUser,
  testSandboxOptions,
  walletBeneficiary,
} from '../support/fake-sandbox-store.ts';
import { ManualClock } from '../support/manual-clock.ts';

const OTP = '123456';
const { asyncDelayMs, inputTtlMs, lockMs } = testSandboxOptions;

/** The spec's failed envelope with this type, and the fields given (such as the operation's id). */
const failed = (type: string, fields: Record<string, unknown> = {}) =>
  expect.objectContaining({ success: false, status: 'failed', type, msg: expect.any(String), ...fields });

/** A manual clock whose sleeps wait until the test wakes them, so a test can act in the middle of one. */
class GatedClock extends ManualClock {
  private sleeper: (() => void) | undefined;
  private announce: () => void = () => {};
  private readonly asleep = new Promise<void>((resolve) => {
    this.announce = resolve;
  });

  override async sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      this.sleeper = resolve;
      this.announce();
    });
    await super.sleep(ms);
  }

  /** Resolves once the code under test sleeps. */
  sleeping(): Promise<void> {
    return this.asleep;
  }

  wake(): void {
    this.sleeper?.();
  }
}

/** The OTP question of a `user_input_required` answer, answered. */
function answered(asked: HttpAnswer, answer: string) {
  const inputs = asked.body.userInputs as { id: string; index: number; query: string; answer: string }[];
  return inputs.map((input) => ({ ...input, answer }));
}

/** The wallet beneficiary of a user at the OTP bank: asked, then answered. Returns its id. */
async function givenOtpBeneficiary(user: SandboxTestUser): Promise<string> {
  const asked = await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
  const done = await user.call(createBeneficiary, {
    sync: true,
    ...walletBeneficiary(),
    jobID: String(asked.body.jobID),
    userInputs: answered(asked, OTP),
  });
  if (done.body.status !== 'done') throw new Error(`no beneficiary: ${JSON.stringify(done.body)}`);
  return listedId(user);
}

async function givenBeneficiary(user: SandboxTestUser): Promise<string> {
  await user.call(createBeneficiary, { sync: true, ...walletBeneficiary() });
  return listedId(user);
}

/** The id the list shows for the user's one beneficiary (the creation's reference is a receipt). */
async function listedId(user: SandboxTestUser): Promise<string> {
  const listed = await user.call(listBeneficiaries, { sync: true });
  const [beneficiary] = listed.body.beneficiaries as { id: string }[];
  return String(beneficiary?.id);
}

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

describe('an operation sent with sync: false', () => {
  it('answers initialized, holds the connection, and reads back done once the async delay has passed', async () => {
    // prepare
    const { store, clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY');
    const receiverID = await givenBeneficiary(user);

    // act
    const accepted = await user.call(createTransfer, {
      sync: false,
      amount: 75.25,
      senderID: user.accountId,
      receiverID,
    });
    const operationID = String(accepted.body.operationID);
    clock.advance(asyncDelayMs - 1);
    const early = await user.call(getOperation, { operationID });
    const meanwhile = await user.call(getMetadata, { sync: true });
    clock.advance(1);
    const completed = await user.call(getOperation, { operationID });
    const { transfers } = await store.getUserAssets(user.connectionId);

    // assess
    expect(accepted).toEqual({ status: 202, body: { operationID, success: true, status: 'initialized' } });
    // The read carries the operation's `opInfo` too (the dapi-v2 dialect's: the path both share).
    const opInfo = (status: string) => expect.objectContaining({ status, type: '/payment/transfer/create' });
    expect(early).toEqual({
      status: 200,
      body: { operationID, success: true, status: 'initialized', opInfo: opInfo('initialized') },
    });
    expect(meanwhile).toEqual({ status: 409, body: failed('OPERATION_IN_PROGRESS') });
    expect(completed).toEqual({
      status: 200,
      body: {
        operationID,
        success: true,
        status: 'done',
        reference: transfers[0]?.reference,
        opInfo: opInfo('done'),
      },
    });
    expect(transfers).toEqual([expect.objectContaining({ operationId: operationID, amountMinor: 7_525 })]);
  });

  it('reads back a refusal as failed once the async delay has passed, having debited nothing', async () => {
    // prepare
    const { store, clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY', { balance: 50 });
    const receiverID = await givenBeneficiary(user);

    // act
    const accepted = await user.call(createTransfer, {
      sync: false,
      amount: 60,
      senderID: user.accountId,
      receiverID,
    });
    const operationID = String(accepted.body.operationID);
    clock.advance(asyncDelayMs);
    const completed = await user.call(getOperation, { operationID });

    // assess
    expect(accepted.status).toBe(202);
    expect(completed).toEqual({ status: 200, body: failed('INSUFFICIENT_BALANCE', { operationID }) });
    expect((await store.getUserAssets(user.connectionId)).accounts[0]?.balanceMinor).toBe(5_000);
  });

  it('at a bank that carries operations out at once: answers the outcome itself, nothing left to read', async () => {
    // prepare
    const { store, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_BENEFICIARY', { asyncDelaySeconds: 0 });
    const receiverID = await givenBeneficiary(user);

    // act
    const answered = await user.call(createTransfer, {
      sync: false,
      amount: 12.5,
      senderID: user.accountId,
      receiverID,
    });
    const after = await user.call(getMetadata, { sync: true });
    const { transfers } = await store.getUserAssets(user.connectionId);

    // assess: the envelope sync: true would have answered, and the connection free at once
    expect(answered).toEqual({
      status: 200,
      body: {
        operationID: expect.any(String),
        success: true,
        status: 'done',
        reference: transfers[0]?.reference,
      },
    });
    expect(after.status).toBe(200);
  });

  it('at a bank that carries operations out at once: asks its question in the answer itself', async () => {
    // prepare
    const { createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP', { asyncDelaySeconds: 0 });

    // act
    const asked = await user.call(createBeneficiary, { ...walletBeneficiary(), sync: false });

    // assess
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ status: 'user_input_required', userInputs: [{ id: 'otp' }] });
  });

  it('on an OTP bank: asks for input only after the async delay, and takes the answer from then on', async () => {
    // prepare
    const { clock, createUser } = givenSandbox();
    const user = await createUser('SANDBOX_OTP');
    const fields = { ...walletBeneficiary(), sync: false };
    const accepted = await user.call(createBeneficiary, fields);
    const jobID = String(accepted.body.jobID);
    const answer = {
      ...fields,
      sync: true,
      jobID,
      userInputs: [{ id: 'otp', index: 0, query: '', answer: OTP }],
    };

    // act
    const tooEarly = await user.call(createBeneficiary, answer);
    clock.advance(asyncDelayMs);
    const asked = await user.call(getOperation, { jobID });
    const done = await user.call(createBeneficiary, answer);

    // assess
    expect(accepted).toEqual({ status: 202, body: { jobID, success: true, status: 'initialized' } });
    expect(tooEarly).toEqual({ status: 404, body: failed('INVALID_OPERATION_ID') });
    expect(asked.body).toMatchObject({ jobID, status: 'user_input_required' });
    expect(done).toEqual({
      status: 200,
      body: { jobID, success: true, status: 'done', reference: expect.any(String) },
    });
  });
});
