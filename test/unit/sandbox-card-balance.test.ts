/**
 * Card balance (`POST /v2/data/balance/get`): the balance of the user's own card in
 * the bank's currency, refusals for unknown, foreign or missing card ids, and the OTP some banks ask.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import { BalanceResponse } from '#shared/provider/interface/responses';
import { createUser, failed, type TestUser } from '../support/in-process-sandbox.ts';

const BALANCE = '/v2/data/balance/get';

const balanceOf = (user: TestUser, fields: Record<string, unknown> = { cardID: user.cardId }) =>
  user.call(BALANCE, fields);

/** The balance fields every done answer carries, in the given currency. */
const balanceShape = (currency: { code: string; name: string }) => ({
  availableBalance: expect.any(Number),
  outstandingBalance: expect.any(Number),
  amountDue: expect.any(Number),
  cardNumber: expect.stringMatching(/^\*{4} \*{4} \*{4} \d{4}$/),
  dueDate: expect.any(String),
  currency,
});

describe('card balance', () => {
  it("answers the balance of the user's card: done, masked number, future due date, AED", async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const reply = await balanceOf(user);

    // assess
    expect(reply.status).toBe(200);
    const answer = BalanceResponse.parse(reply.body);
    expect(reply.body).toEqual({
      operationID: expect.stringMatching(/\S/),
      success: true,
      status: 'done',
      balance: balanceShape({ code: 'AED', name: 'UAE Dirham' }),
    });
    const dueDate = answer.balance?.dueDate ?? '';
    expect(dueDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
    expect(Number.isNaN(Date.parse(dueDate))).toBe(false);
    expect(Date.parse(dueDate)).toBeGreaterThan(Date.now());
  });

  it('answers in the currency of the bank (KWD)', async () => {
    // prepare
    const user = await createUser('SANDBOX_KWD');

    // act
    const reply = await balanceOf(user);

    // assess
    expect(reply.status).toBe(200);
    expect(BalanceResponse.parse(reply.body).balance?.currency.code).toBe('KWD');
    expect(reply.body).toEqual({
      operationID: expect.stringMatching(/\S/),
      success: true,
      status: 'done',
      balance: balanceShape({ code: 'KWD', name: 'Kuwaiti Dinar' }),
    });
  });

  it('answers the same card the same way twice, with a new operation each time', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const first = await balanceOf(user);

    // act
    const second = await balanceOf(user);

    // assess
    expect(second.body.balance).toEqual(first.body.balance);
    expect(second.body.operationID).not.toBe(first.body.operationID);
  });

  it('refuses an unknown card id (404 INVALID_CARD_ID)', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const reply = await balanceOf(user, { cardID: 'card_does_not_exist' });

    // assess
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual(failed('INVALID_CARD_ID'));
  });

  it("refuses another user's card (INVALID_CARD_ID), which its owner can still read", async () => {
    // prepare
    const owner = await createUser('SANDBOX_BENEFICIARY');
    const stranger = await createUser('SANDBOX_BENEFICIARY');

    // act
    const foreign = await balanceOf(stranger, { cardID: owner.cardId });
    const own = await balanceOf(owner);

    // assess
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(failed('INVALID_CARD_ID'));
    expect(foreign.body.balance).toBeUndefined();
    expect(own.status).toBe(200);
    expect(own.body.status).toBe('done');
  });

  it('refuses a request without cardID (BAD_REQUEST)', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const missing = await balanceOf(user, {});
    const empty = await balanceOf(user, { cardID: '' });

    // assess
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual(failed('BAD_REQUEST'));
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual(failed('BAD_REQUEST'));
  });
});

describe('card balance on a bank that asks for an OTP (SANDBOX_OTP)', () => {
  it('asks for the OTP, then answers the balance when the request is repeated with it', async () => {
    // prepare
    const user = await createUser('SANDBOX_OTP');

    // act
    const asked = await balanceOf(user);
    const inputs = (asked.body.userInputs ?? []) as Record<string, unknown>[];
    const done = await balanceOf(user, {
      cardID: user.cardId,
      operationID: asked.body.operationID,
      userInputs: inputs.map((input) => ({ ...input, answer: '123456' })),
    });

    // assess
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({
      operationID: expect.stringMatching(/\S/),
      success: true,
      status: 'user_input_required',
      userInputs: [{ id: 'otp', index: 0, query: expect.stringMatching(/\S/), answer: '' }],
    });
    expect(done.status).toBe(200);
    expect(BalanceResponse.parse(done.body).status).toBe('done');
    expect(done.body).toEqual({
      operationID: asked.body.operationID,
      success: true,
      status: 'done',
      balance: balanceShape({ code: 'AED', name: 'UAE Dirham' }),
    });
  });

  it('refuses an answer for another card than the one asked about (OPERATION_MISMATCH)', async () => {
    // prepare
    const user = await createUser('SANDBOX_OTP');
    const asked = await balanceOf(user);
    const answer = {
      operationID: asked.body.operationID,
      userInputs: [{ ...asked.body.userInputs[0], answer: '123456' }],
    };

    // act
    const mismatched = await balanceOf(user, { cardID: 'card_other', ...answer });
    const done = await balanceOf(user, { cardID: user.cardId, ...answer });

    // assess
    expect(mismatched.status).toBe(409);
    expect(mismatched.body).toEqual(failed('OPERATION_MISMATCH'));
    expect(done.body).toMatchObject({ operationID: asked.body.operationID, status: 'done' });
  });
});
