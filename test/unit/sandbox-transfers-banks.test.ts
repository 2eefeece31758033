/**
 * Transfers at the other kinds of bank: the beneficiary's details on the first transfer (scenario
 * 2), inline without beneficiaries (scenario 3), a three-decimal currency; and exact decimal money.
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store
 * (the sanctioned stand-in for its table) and a manual clock
 * (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import { TransferResponse } from '#shared/provider/interface/responses';
import {
  createUser,
  failed,
  givenBeneficiary,
  stateOf,
  walletIban,
  walletInline,
} from '../support/in-process-sandbox.ts';
import {
  autoflow,
  failedOperation,
  sameBankIban,
  strangerIban,
  transfer,
} from '../support/sandbox-transfers.ts';

describe('scenario 2: details on the first transfer (SANDBOX_FIRST_DETAILS)', () => {
  it('demands matching details on the first transfer only', async () => {
    // prepare
    const user = await createUser('SANDBOX_FIRST_DETAILS');
    const receiverID = await givenBeneficiary(user);

    // act
    const withoutDetails = await transfer(user, { amount: 20, receiverID });
    const afterRequired = await stateOf(user);
    const otherDetails = await transfer(user, {
      amount: 20,
      receiverID,
      beneficiary: walletInline({ iban: strangerIban }),
    });
    const afterMismatch = await stateOf(user);
    const first = await transfer(user, { amount: 20, receiverID, beneficiary: walletInline() });
    const second = await transfer(user, { amount: 30, receiverID });

    // assess
    expect(withoutDetails.status).toBe(422);
    expect(withoutDetails.body).toEqual(failedOperation('BENEFICIARY_DETAILS_REQUIRED'));
    expect(afterRequired).toEqual({ balance: 100_000, transfers: [] });
    expect(otherDetails.status).toBe(422);
    expect(otherDetails.body).toEqual(failedOperation('BENEFICIARY_DETAILS_MISMATCH'));
    expect(afterMismatch).toEqual({ balance: 100_000, transfers: [] });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: true, status: 'done' });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ success: true, status: 'done' });
    const { balance, transfers } = await stateOf(user);
    expect(balance).toBe(99_950);
    expect(transfers.map(({ reference, amount }) => ({ reference, amount }))).toEqual(
      expect.arrayContaining([
        { reference: first.body.reference, amount: 20 },
        { reference: second.body.reference, amount: 30 },
      ]),
    );
    expect(transfers).toHaveLength(2);
  });
});

describe('scenario 3: inline receiver, no beneficiaries (SANDBOX_NO_BENEFICIARY)', () => {
  it('transfers through the autoflow without sync nor receiverID: done, debited, recorded', async () => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');

    // act
    const reply = await autoflow(user, { amount: 250.75 });

    // assess
    expect(reply.status).toBe(200);
    const done = TransferResponse.parse(reply.body);
    expect(done).toEqual({
      operationID: expect.stringMatching(/\S/),
      success: true,
      status: 'done',
      reference: expect.stringMatching(/\S/),
    });
    const { balance, transfers } = await stateOf(user);
    expect(balance).toBe(99_749.25);
    expect(transfers).toEqual([
      expect.objectContaining({
        reference: done.reference,
        operationID: done.operationID,
        amount: 250.75,
        type: 'local',
        receiver: { name: 'Acme Wallet LLC', iban: walletIban, swiftCode: 'WALTAEAD' },
      }),
    ]);
  });

  it('refuses /transfer/create: 422 BENEFICIARY_NOT_SUPPORTED, nothing debited', async () => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');

    // act
    const reply = await transfer(user, { amount: 20, receiverID: 'ben_ANY' });

    // assess
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual(failedOperation('BENEFICIARY_NOT_SUPPORTED'));
    expect(await stateOf(user)).toEqual({ balance: 100_000, transfers: [] });
  });

  it('refuses an autoflow without action: 400 BAD_REQUEST', async () => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');
    const { action: _action, ...withoutAction } = {
      amount: 20,
      senderID: user.accountId,
      action: 'transfer',
      beneficiary: walletInline(),
    };

    // act
    const reply = await user.call('/v1/payment/transfer/autoflow', withoutAction);

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(failed('BAD_REQUEST'));
    expect(reply.body.details).toEqual(expect.arrayContaining([expect.stringMatching(/^action:/)]));
    expect(await stateOf(user)).toEqual({ balance: 100_000, transfers: [] });
  });

  it('refuses an inline country given as a full name: 400 BAD_REQUEST (two-letter code wanted)', async () => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');

    // act
    const reply = await autoflow(user, {
      amount: 20,
      beneficiary: walletInline({ country: 'United Arab Emirates' }),
    });

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(failed('BAD_REQUEST'));
    expect(reply.body.details).toEqual(
      expect.arrayContaining([expect.stringMatching(/^beneficiary\.country:/)]),
    );
    expect(await stateOf(user)).toEqual({ balance: 100_000, transfers: [] });
  });

  it('refuses an inline IBAN with wrong check digits: 400 INVALID_IBAN', async () => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');

    // act
    const reply = await autoflow(user, {
      amount: 20,
      beneficiary: walletInline({ iban: 'AE080331234567890123456' }),
    });

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(failedOperation('INVALID_IBAN'));
    expect(await stateOf(user)).toEqual({ balance: 100_000, transfers: [] });
  });
});

describe('three-decimal currency (SANDBOX_KWD)', () => {
  it('transfers 1.234 KWD: 1000 becomes exactly 998.766', async () => {
    // prepare
    const user = await createUser('SANDBOX_KWD');
    const receiverID = await givenBeneficiary(user);

    // act
    const reply = await transfer(user, { amount: 1.234, receiverID });

    // assess
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ success: true, status: 'done' });
    const { balance, transfers } = await stateOf(user);
    expect(balance).toBe(998.766);
    expect(String(balance)).toBe('998.766');
    expect(transfers).toEqual([
      expect.objectContaining({
        reference: reply.body.reference,
        amount: 1.234,
        currency: 'KWD',
        type: 'local',
      }),
    ]);
  });

  it('refuses 0.05 KWD to a local beneficiary (minimum 1 KWD): 422 AMOUNT_BELOW_MINIMUM', async () => {
    // prepare
    const user = await createUser('SANDBOX_KWD');
    const receiverID = await givenBeneficiary(user);

    // act
    const reply = await transfer(user, { amount: 0.05, receiverID });

    // assess
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual(failedOperation('AMOUNT_BELOW_MINIMUM'));
    expect(await stateOf(user)).toEqual({ balance: 1_000, transfers: [] });
  });

  it('refuses an amount with more decimals than KWD has: 400 BAD_REQUEST', async () => {
    // prepare
    const user = await createUser('SANDBOX_KWD');
    const receiverID = await givenBeneficiary(user);

    // act
    const reply = await transfer(user, { amount: 1.2345, receiverID });

    // assess
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(failed('BAD_REQUEST'));
    expect(await stateOf(user)).toEqual({ balance: 1_000, transfers: [] });
  });
});

describe('money is exact', () => {
  it('ten sequential decimal transfers leave the exact decimal difference, with no floating drift', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const receiverID = await givenBeneficiary(user, { iban: sameBankIban, swiftCode: 'SBXBAEAD' });
    const amounts = [1.01, 1.1, 2.2, 3.3, 1.07, 4.4, 1.15, 5.55, 1.99, 7.77];

    // act
    const replies = [];
    for (const amount of amounts) replies.push(await transfer(user, { amount, receiverID }));

    // assess
    expect(replies.map(({ status, body }) => [status, body.status])).toEqual(
      amounts.map(() => [200, 'done']),
    );
    // 100000 - 29.54; subtracting the doubles one by one would drift to 99970.45999999999.
    const { balance, transfers } = await stateOf(user);
    expect(String(balance)).toBe('99970.46');
    expect(balance).toBe(99_970.46);
    expect(transfers.map(({ amount }) => amount).sort((a, b) => a - b)).toEqual(
      [...amounts].sort((a, b) => a - b),
    );
    expect(new Set(transfers.map(({ type }) => type))).toEqual(new Set(['same']));
  });
});
