/**
 * The sandbox's operation engine over the in-memory store and a manual clock: operations sent with
 * `sync: false`.
 */
import { describe, expect, it } from 'vitest';
import { createBeneficiary } from '#shared/sandbox/operations/beneficiaries';
import { getMetadata } from '#shared/sandbox/operations/metadata';
import { getOperation } from '#shared/sandbox/operations/operation-get';
import { createTransfer } from '#shared/sandbox/operations/transfers';
import { givenSandbox, walletBeneficiary } from '../support/given-sandbox.ts';
import { asyncDelayMs, failed, givenBeneficiary, OTP } from '../support/sandbox-engine.ts';

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
