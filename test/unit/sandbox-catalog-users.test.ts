/**
 * The sandbox catalog's administration endpoints: `POST /sandbox/users` refusals and options, and
 * `POST /sandbox/users/get`.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import { SandboxUserResponse } from '#shared/sandbox/admin-schemas';
import {
  appSecret,
  createUser,
  failed,
  givenBeneficiary,
  post,
  walletBeneficiary,
} from '../support/in-process-sandbox.ts';

describe('POST /sandbox/users refusals and options', () => {
  it('answers 404 INVALID_BANK_ID for an unknown bankId', async () => {
    // act
    const reply = await post('/sandbox/users', { appSecret, bankId: 'SANDBOX_NOPE' });

    // assess
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(failed('INVALID_BANK_ID'));
  });

  it('answers 401 UNAUTHORIZED for a wrong appSecret', async () => {
    // act
    const reply = await post('/sandbox/users', { appSecret: 'app_wrong', bankId: 'SANDBOX_BENEFICIARY' });

    // assess
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({
      success: false,
      status: 'failed',
      requestId: expect.any(String),
      type: 'UNAUTHORIZED',
      msg: 'Invalid access token',
    });
  });

  it('sets the opening balance from `balance`', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY', { balance: 50.25 });

    // act
    const state = await user.state();

    // assess
    expect(user.balance).toBe(50.25);
    expect(state.accounts).toEqual([{ id: user.accountId, currency: 'AED', balance: 50.25 }]);
  });

  it('takes a KWD balance with 3 decimals', async () => {
    // act
    const created = await post('/sandbox/users', { appSecret, bankId: 'SANDBOX_KWD', balance: 12.345 });

    // assess
    expect(created.status).toBe(201);
    expect(created.body.accounts).toEqual([{ id: expect.any(String), currency: 'KWD', balance: 12.345 }]);
  });

  it.each([
    { name: 'AED balance with 3 decimals', settings: { balance: 50.255 }, field: 'balance' },
    { name: 'negative balance', settings: { balance: -1 }, field: 'balance' },
    { name: 'balance as a string', settings: { balance: '50' }, field: 'balance' },
    {
      name: 'access code lifetime of 0 s',
      settings: { accessCodeTtlSeconds: 0 },
      field: 'accessCodeTtlSeconds',
    },
  ])('answers 400 BAD_REQUEST for $name', async ({ settings, field }) => {
    // act
    const reply = await post('/sandbox/users', { appSecret, bankId: 'SANDBOX_BENEFICIARY', ...settings });

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      success: false,
      status: 'failed',
      requestId: expect.any(String),
      type: 'BAD_REQUEST',
      msg: 'Invalid JSON request',
      details: [expect.stringMatching(new RegExp(`^${field}: `))],
    });
  });
});

describe('POST /sandbox/users/get', () => {
  it("returns the user's accounts, cards and transfers", async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const beneficiaryId = await givenBeneficiary(user);
    const transfer = await user.call('/v1/payment/transfer/create', {
      sync: true,
      amount: 20,
      senderID: user.accountId,
      receiverID: beneficiaryId,
    });

    // act
    const reply = await post('/sandbox/users/get', { appSecret, connectionID: user.connectionID });

    // assess
    expect(reply.status).toBe(200);
    const state = SandboxUserResponse.parse(reply.body);
    expect(state).toEqual({
      connectionID: user.connectionID,
      bankId: 'SANDBOX_BENEFICIARY',
      accounts: [{ id: user.accountId, currency: 'AED', balance: 99_980 }],
      cards: [{ id: user.cardId }],
      // No fault rules were set for this user.
      faults: [],
      transfers: [
        {
          reference: transfer.body.reference,
          operationID: transfer.body.operationID,
          senderID: user.accountId,
          amount: 20,
          currency: 'AED',
          type: 'local',
          receiver: {
            beneficiaryID: beneficiaryId,
            name: 'Acme Wallet LLC',
            iban: walletBeneficiary().iban,
            swiftCode: 'WALTAEAD',
          },
          createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        },
      ],
      // The one creation call of its beneficiary.
      beneficiaryCreations: [
        {
          jobID: expect.any(String),
          at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
          iban: walletBeneficiary().iban,
          accountNumber: walletBeneficiary().accountNumber,
          outcome: 'created',
          beneficiaryID: beneficiaryId,
        },
      ],
    });
  });

  it('answers every call of the beneficiary creation that reached the bank, with what it did', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    await user.call(
      '/v1/payment/beneficiaries/create',
      { sync: true, ...walletBeneficiary() },
      {
        'x-sandbox-fault': 'error',
      },
    );
    const beneficiaryId = await givenBeneficiary(user);
    const again = await user.call('/v1/payment/beneficiaries/create', { sync: true, ...walletBeneficiary() });

    // act
    const reply = await post('/sandbox/users/get', { appSecret, connectionID: user.connectionID });

    // assess: the call a fault stopped before the bank saw it is not one
    const { beneficiaryCreations } = SandboxUserResponse.parse(reply.body);
    expect(
      beneficiaryCreations.map(({ outcome, type, beneficiaryID }) => ({ outcome, type, beneficiaryID })),
    ).toEqual([
      { outcome: 'created', type: undefined, beneficiaryID: beneficiaryId },
      { outcome: 'refused', type: 'BENEFICIARY_ALREADY_EXISTS', beneficiaryID: undefined },
    ]);
    expect(beneficiaryCreations[1]?.jobID).toBe(again.body.jobID);
  });

  it("refuses another application's secret, a wrong secret and an unknown connection", async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const otherApp = (await post('/sandbox/applications', {})).body.appSecret as string;

    // act
    const withOtherApp = await post('/sandbox/users/get', {
      appSecret: otherApp,
      connectionID: user.connectionID,
    });
    const withWrong = await post('/sandbox/users/get', {
      appSecret: 'app_wrong',
      connectionID: user.connectionID,
    });
    const unknown = await post('/sandbox/users/get', { appSecret, connectionID: 'conn_unknown' });
    const own = await post('/sandbox/users/get', { appSecret, connectionID: user.connectionID });

    // assess
    expect(otherApp).toEqual(expect.any(String));
    for (const reply of [withOtherApp, withWrong, unknown]) {
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(failed('UNAUTHORIZED'));
      expect(reply.body.accounts).toBeUndefined();
    }
    expect(own.status).toBe(200);
  });

  it('answers 400 BAD_REQUEST without connectionID', async () => {
    // act
    const reply = await post('/sandbox/users/get', { appSecret });

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      success: false,
      status: 'failed',
      requestId: expect.any(String),
      type: 'BAD_REQUEST',
      msg: 'Invalid JSON request',
      details: [expect.stringMatching(/^connectionID: /)],
    });
  });
});
