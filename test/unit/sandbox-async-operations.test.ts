/**
 * Asynchronous operations: `sync: false` answers `202 initialized`, the result is read
 * back from `POST /v2/operation/get` (or its alias, `/v1/operation/get`) once the operation completes
 * (a bank takes 400 ms here, on the manual clock), and the connection stays taken until then.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 *
 * The operation read's own rules (`POST /v2/operation/get`): `sandbox-operation-read.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { AccountsMetadata } from '#shared/provider/interface/schemas';
import {
  createUser,
  failed,
  givenBeneficiary,
  listedIds,
  stateOf,
  walletBeneficiary,
} from '../support/in-process-sandbox.ts';
import { getOperation, initialized, metadata, OTP, settled } from '../support/sandbox-async-operations.ts';

describe('sync: false', () => {
  it('metadata: 202 initialized, read back initialized, then the envelope sync: true gives', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const accepted = await metadata(user, false);
    const jobID: string = accepted.body.jobID;
    const early = await getOperation(user, { jobID });
    const completed = await settled(user, { jobID });
    const synchronous = await metadata(user, true);

    // assess
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual(initialized({ jobID: expect.stringMatching(/\S/) }));
    expect(early.status).toBe(200);
    expect(early.body).toEqual(initialized({ jobID }));
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({
      jobID,
      success: true,
      status: 'done',
      accountsMetadata: synchronous.body.accountsMetadata,
    });
    expect(AccountsMetadata.parse(completed.body.accountsMetadata).bankName).toBe('Sandbox Beneficiary Bank');
  });

  it('holds the connection while initialized (OPERATION_IN_PROGRESS), and frees it once complete', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const accepted = await metadata(user, false);
    const meanwhile = await user.call('/v1/payment/beneficiaries/get', { sync: true });
    await settled(user, { jobID: accepted.body.jobID });
    const afterwards = await user.call('/v1/payment/beneficiaries/get', { sync: true });

    // assess
    expect(accepted.status).toBe(202);
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.body).toEqual(failed('OPERATION_IN_PROGRESS'));
    expect(afterwards.status).toBe(200);
    expect(afterwards.body).toMatchObject({ success: true, status: 'done', beneficiaries: [] });
  });

  it('beneficiary creation and listing: polled to done with the reference, then listed', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const createAccepted = await user.call('/v1/payment/beneficiaries/create', {
      sync: false,
      ...walletBeneficiary(),
    });
    const created = await settled(user, { jobID: createAccepted.body.jobID });
    const listAccepted = await user.call('/v1/payment/beneficiaries/get', { sync: false });
    const listed = await settled(user, { jobID: listAccepted.body.jobID });

    // assess
    expect(createAccepted.status).toBe(202);
    expect(createAccepted.body).toEqual(initialized({ jobID: expect.stringMatching(/\S/) }));
    expect(created.body).toEqual({
      jobID: createAccepted.body.jobID,
      success: true,
      status: 'done',
      reference: expect.stringMatching(/\S/),
    });
    expect(listAccepted.status).toBe(202);
    expect(listAccepted.body).toEqual(initialized({ jobID: expect.stringMatching(/\S/) }));
    expect(listed.body).toEqual({
      jobID: listAccepted.body.jobID,
      success: true,
      status: 'done',
      beneficiaries: [
        {
          // The bank's id, not the creation's reference (a receipt number).
          id: expect.not.stringMatching(`^${created.body.reference}$`),
          name: walletBeneficiary().name,
          accountNumber: walletBeneficiary().accountNumber,
          type: 'local',
          status: 'approved',
        },
      ],
    });
  });

  it('transfer: 202 with the operationID, polled to done with the reference of the recorded transfer', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const receiverID = await givenBeneficiary(user);
    const before = await stateOf(user);

    // act
    const accepted = await user.call('/v1/payment/transfer/create', {
      sync: false,
      amount: 75.25,
      senderID: user.accountId,
      receiverID,
    });
    const early = await getOperation(user, { operationID: accepted.body.operationID });
    const completed = await settled(user, { operationID: accepted.body.operationID });
    const after = await stateOf(user);

    // assess
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual(initialized({ operationID: expect.stringMatching(/\S/) }));
    expect(early.body).toEqual(initialized({ operationID: accepted.body.operationID }));
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({
      operationID: accepted.body.operationID,
      success: true,
      status: 'done',
      reference: expect.stringMatching(/\S/),
    });
    expect(after.balance).toBe(before.balance - 75.25);
    expect(after.transfers).toEqual([
      expect.objectContaining({
        reference: completed.body.reference,
        operationID: accepted.body.operationID,
        amount: 75.25,
      }),
    ]);
  });

  it('a refusal is accepted as initialized, then read back as failed INSUFFICIENT_BALANCE', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY', { balance: 50 });
    const receiverID = await givenBeneficiary(user);

    // act
    const accepted = await user.call('/v1/payment/transfer/create', {
      sync: false,
      amount: 60,
      senderID: user.accountId,
      receiverID,
    });
    const completed = await settled(user, { operationID: accepted.body.operationID });
    const after = await stateOf(user);

    // assess
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual(initialized({ operationID: expect.stringMatching(/\S/) }));
    expect(completed.body).toEqual(failed('INSUFFICIENT_BALANCE'));
    expect(completed.body.operationID).toBe(accepted.body.operationID);
    expect(after.balance).toBe(50);
    expect(after.transfers).toEqual([]);
  });

  it('on an OTP bank: polled to user_input_required, then answered (sync: true) to done', async () => {
    // prepare
    const user = await createUser('SANDBOX_OTP');
    const fields = { cardID: user.cardId };

    // act
    const accepted = await user.call('/v2/data/balance/get', { ...fields, sync: false });
    const asked = await settled(user, { operationID: accepted.body.operationID });
    const inputs = (asked.body.userInputs ?? []) as Record<string, unknown>[];
    const done = await user.call('/v2/data/balance/get', {
      ...fields,
      sync: true,
      operationID: accepted.body.operationID,
      userInputs: inputs.map((input) => ({ ...input, answer: OTP })),
    });

    // assess
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual(initialized({ operationID: expect.stringMatching(/\S/) }));
    expect(asked.body).toEqual({
      operationID: accepted.body.operationID,
      success: true,
      status: 'user_input_required',
      userInputs: [{ id: 'otp', index: 0, query: expect.stringMatching(/\S/), answer: '' }],
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      operationID: accepted.body.operationID,
      success: true,
      status: 'done',
      balance: expect.objectContaining({ currency: { code: 'AED', name: 'UAE Dirham' } }),
    });
  });

  it('on an OTP bank: a transfer polled to user_input_required is answered and transfers once', async () => {
    // prepare
    const user = await createUser('SANDBOX_OTP');
    const asked = await user.call('/v1/payment/beneficiaries/create', { sync: true, ...walletBeneficiary() });
    const created = await user.call('/v1/payment/beneficiaries/create', {
      sync: true,
      ...walletBeneficiary(),
      jobID: asked.body.jobID,
      userInputs: [{ ...asked.body.userInputs[0], answer: OTP }],
    });
    if (created.body.status !== 'done') throw new Error(`no beneficiary: ${JSON.stringify(created.body)}`);
    const fields = { amount: 20, senderID: user.accountId, receiverID: (await listedIds(user))[0] };
    const before = await stateOf(user);

    // act
    const accepted = await user.call('/v1/payment/transfer/create', { ...fields, sync: false });
    const waiting = await settled(user, { operationID: accepted.body.operationID });
    const done = await user.call('/v1/payment/transfer/create', {
      ...fields,
      sync: true,
      operationID: accepted.body.operationID,
      userInputs: [{ ...waiting.body.userInputs[0], answer: OTP }],
    });
    const readBack = await getOperation(user, { operationID: accepted.body.operationID });
    const after = await stateOf(user);

    // assess
    expect(accepted.status).toBe(202);
    expect(waiting.body).toMatchObject({ status: 'user_input_required', userInputs: [{ id: 'otp' }] });
    expect(done.body).toEqual({
      operationID: accepted.body.operationID,
      success: true,
      status: 'done',
      reference: expect.stringMatching(/\S/),
    });
    expect(readBack.body).toEqual(done.body);
    expect(after.balance).toBe(before.balance - 20);
    expect(after.transfers).toHaveLength(1);
  });
});
