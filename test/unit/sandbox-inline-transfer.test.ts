/**
 * The inline-beneficiary transfer (endpoint 5): accepted on `/v1/payment/transfer/create`
 * (the spec files it under "Create transfer") as well as on `/v1/payment/transfer/autoflow` (an alias),
 * with `action` any name of a payment flow (the spec shows none), at most 64 characters, kept on the
 * bank's record; an empty or longer one refused.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import {
  createUser,
  failed,
  givenBeneficiary,
  stateOf,
  walletInline,
} from '../support/in-process-sandbox.ts';

const CREATE = '/v1/payment/transfer/create';
const AUTOFLOW = '/v1/payment/transfer/autoflow';

/** The exact BAD_REQUEST envelope naming `field` in its details. */
const badRequestNaming = (field: string) =>
  expect.objectContaining({
    success: false,
    status: 'failed',
    type: 'BAD_REQUEST',
    details: expect.arrayContaining([expect.stringMatching(new RegExp(`^${field}: `))]),
  });

describe('the inline form on both paths', () => {
  it.each([CREATE, AUTOFLOW])('%s: a deposit to the receiver inline, its action kept', async (path) => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');

    // act
    const reply = await user.call(path, {
      amount: 15,
      senderID: user.accountId,
      action: 'deposit',
      beneficiary: walletInline(),
    });
    const { balance, transfers } = await stateOf(user);

    // assess
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      operationID: expect.any(String),
      success: true,
      status: 'done',
      reference: expect.any(String),
    });
    expect(balance).toBe(user.balance - 15);
    expect(transfers).toEqual([
      expect.objectContaining({
        reference: reply.body.reference,
        action: 'deposit',
        receiver: expect.objectContaining({ name: walletInline().name, iban: walletInline().iban }),
      }),
    ]);
  });

  it.each([
    [CREATE, 'transfer'],
    [AUTOFLOW, 'WALLET_TOPUP'],
    [CREATE, 'a'.repeat(64)],
  ])('%s: action %s, a flow name the sandbox has never seen, is taken and kept', async (path, action) => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');

    // act
    const reply = await user.call(path, {
      amount: 15,
      senderID: user.accountId,
      action,
      beneficiary: walletInline(),
    });

    // assess
    expect(reply.body).toMatchObject({ status: 'done' });
    expect((await stateOf(user)).transfers).toEqual([expect.objectContaining({ action })]);
  });

  it.each([
    [CREATE, ''],
    [AUTOFLOW, '   '],
    [CREATE, 'a'.repeat(65)],
    [AUTOFLOW, 42],
  ])(
    '%s: action %j (empty, blank, over 64 characters, not a string) is BAD_REQUEST naming action, nothing moves',
    async (path, action) => {
      // prepare
      const user = await createUser('SANDBOX_NO_BENEFICIARY');

      // act
      const reply = await user.call(path, {
        amount: 15,
        senderID: user.accountId,
        action,
        beneficiary: walletInline(),
      });
      const { balance, transfers } = await stateOf(user);

      // assess
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual(badRequestNaming('action'));
      expect(balance).toBe(user.balance);
      expect(transfers).toEqual([]);
    },
  );

  it('transfer/create: the inline form at a bank that requires beneficiaries is BENEFICIARY_REQUIRED', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const reply = await user.call(CREATE, {
      amount: 15,
      senderID: user.accountId,
      action: 'deposit',
      beneficiary: walletInline(),
    });

    // assess
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual(failed('BENEFICIARY_REQUIRED'));
  });

  it('transfer/create: receiverID with an action is refused naming action; neither form names what is missing', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const receiverID = await givenBeneficiary(user);

    // act
    const both = await user.call(CREATE, {
      amount: 15,
      senderID: user.accountId,
      receiverID,
      action: 'deposit',
    });
    const neither = await user.call(CREATE, { amount: 15, senderID: user.accountId });
    const inlineWithoutReceiver = await user.call(CREATE, {
      amount: 15,
      senderID: user.accountId,
      action: 'deposit',
    });

    // assess
    expect(both.status).toBe(400);
    expect(both.body).toEqual(badRequestNaming('action'));
    expect(neither.status).toBe(400);
    expect(neither.body).toEqual(badRequestNaming('receiverID'));
    expect(inlineWithoutReceiver.status).toBe(400);
    expect(inlineWithoutReceiver.body).toEqual(badRequestNaming('beneficiary'));
    expect((await stateOf(user)).transfers).toEqual([]);
  });

  it('transfer/create: the beneficiary form still takes receiverID (and details) as before', async () => {
    // prepare
    const user = await createUser('SANDBOX_FIRST_DETAILS');
    const receiverID = await givenBeneficiary(user);

    // act
    const reply = await user.call(CREATE, {
      amount: 15,
      senderID: user.accountId,
      receiverID,
      beneficiary: walletInline(),
    });

    // assess
    expect(reply.body).toMatchObject({ status: 'done' });
    const [transfer] = (await stateOf(user)).transfers;
    expect(transfer?.receiver.beneficiaryID).toBe(receiverID);
    expect(transfer).not.toHaveProperty('action');
  });
});
