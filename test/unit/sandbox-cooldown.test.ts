/**
 * Beneficiary cool-down: a new beneficiary is hidden from the list until its cool-down has passed
 * (SANDBOX_COOLDOWN: 24 hours; SANDBOX_COOLDOWN_FAST: 0.001 hours, 3.6 s, so the release itself can be
 * watched as the clock moves). The creation's `reference` is a receipt, not the id: until the list shows the beneficiary, a client has no id to send (the cool-down refusal of a transfer
 * is seen at SANDBOX_COOLDOWN_LISTED, which lists it at once, and in the unit tests).
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import { CreateBeneficiaryResponse, ListBeneficiariesResponse } from '#shared/provider/interface/responses';
import {
  clock,
  createUser,
  eventually,
  failedOperation,
  stateOf,
  type TestUser,
  walletBeneficiary,
} from '../support/in-process-sandbox.ts';

const createBeneficiary = (user: TestUser, overrides: Record<string, unknown> = {}) =>
  user.call('/v1/payment/beneficiaries/create', { sync: true, ...walletBeneficiary(overrides) });

/** The ids and statuses the user's beneficiary list shows now. */
async function listed(user: TestUser) {
  const reply = await user.call('/v1/payment/beneficiaries/get', { sync: true });
  if (reply.status !== 200) throw new Error(`list failed: ${reply.status} ${JSON.stringify(reply.body)}`);
  const { status, beneficiaries } = ListBeneficiariesResponse.parse(reply.body);
  if (status !== 'done' || !beneficiaries) throw new Error(`list not done: ${JSON.stringify(reply.body)}`);
  return beneficiaries;
}

const transfer = (user: TestUser, receiverID: string, amount = 25) =>
  user.call('/v1/payment/transfer/create', { sync: true, amount, senderID: user.accountId, receiverID });

describe('cool-down of 24 hours (SANDBOX_COOLDOWN)', () => {
  it('creates the beneficiary but hides it; its receipt is no id a transfer can name', async () => {
    // prepare
    const user = await createUser('SANDBOX_COOLDOWN');

    // act
    const created = await createBeneficiary(user);
    const receipt = CreateBeneficiaryResponse.parse(created.body).reference ?? '';
    const list = await listed(user);
    const refused = await transfer(user, receipt);

    // assess
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      jobID: expect.stringMatching(/\S/),
      success: true,
      status: 'done',
      reference: expect.stringMatching(/\S/),
    });
    expect(list).toEqual([]);
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual(failedOperation('INVALID_BENEFICIARY_ID', 'operationID'));
    expect(await stateOf(user)).toEqual({ balance: 100_000, transfers: [] });
  });

  it('refuses a duplicate during the cool-down (409 BENEFICIARY_ALREADY_EXISTS) though the list hides it', async () => {
    // prepare
    const user = await createUser('SANDBOX_COOLDOWN');
    const first = await createBeneficiary(user);
    if (first.status !== 200) throw new Error(`beneficiary not created: ${JSON.stringify(first.body)}`);

    // act
    const duplicate = await createBeneficiary(user, { iban: 'ae07 0331 2345 6789 0123 456' });
    const list = await listed(user);

    // assess
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual(failedOperation('BENEFICIARY_ALREADY_EXISTS', 'jobID'));
    expect(list).toEqual([]);
  });
});

describe('cool-down of 3.6 seconds (SANDBOX_COOLDOWN_FAST)', () => {
  it('releases the beneficiary when the cool-down passes: listed as approved, then transfers go through', async () => {
    // prepare
    const user = await createUser('SANDBOX_COOLDOWN_FAST');
    // Load the list and transfer handlers first, so the checks inside the 3.6 s window stay quick.
    await listed(user);
    await transfer(user, 'ben_WARM_UP');
    const createdAt = clock.now();
    const created = await createBeneficiary(user);
    const receipt = CreateBeneficiaryResponse.parse(created.body).reference ?? '';
    const listedEarly = await listed(user);
    if (clock.now() - createdAt >= 3_000) throw new Error('the early checks did not fit in the cool-down');

    // act
    const released = await eventually(async () => (await listed(user))[0], 10_000);
    const beneficiaryId = released.id;
    const paid = await transfer(user, beneficiaryId);

    // assess
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ success: true, status: 'done' });
    expect(listedEarly).toEqual([]);
    expect(beneficiaryId).not.toBe(receipt);
    expect(released).toEqual({
      id: beneficiaryId,
      name: 'Acme Wallet LLC',
      accountNumber: '1234567890123456',
      type: 'local',
      status: 'approved',
    });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ success: true, status: 'done', reference: expect.any(String) });
    const { balance, transfers } = await stateOf(user);
    expect(balance).toBe(99_975);
    expect(transfers).toEqual([
      expect.objectContaining({ reference: paid.body.reference, amount: 25, type: 'local' }),
    ]);
  });
});

describe('cool-down of 3.6 seconds, listed at once (SANDBOX_COOLDOWN_LISTED)', () => {
  it('lists the beneficiary pending, refuses a transfer to it, then lists it approved and transfers', async () => {
    // prepare: its beneficiary, listed (pending) at once, its id the list's
    const user = await createUser('SANDBOX_COOLDOWN_LISTED');
    const created = await createBeneficiary(user);
    if (created.status !== 200) throw new Error(`beneficiary not created: ${JSON.stringify(created.body)}`);

    // act: on the sandbox's clock, so no load on the machine moves the cool-down's end
    const listedAtOnce = await listed(user);
    const receiverID = listedAtOnce[0]?.id ?? '';
    const tooEarly = await transfer(user, receiverID, 20);
    const approved = await eventually(async () => {
      const now = await listed(user);
      return now[0]?.status === 'approved' ? now : undefined;
    }, 10_000);
    const done = await transfer(user, receiverID, 20);

    // assess
    expect(listedAtOnce).toEqual([expect.objectContaining({ id: receiverID, status: 'pending' })]);
    expect(tooEarly.status).toBe(422);
    expect(tooEarly.body).toEqual(failedOperation('BENEFICIARY_COOL_DOWN_PERIOD', 'operationID'));
    expect(approved).toEqual([expect.objectContaining({ id: receiverID, status: 'approved' })]);
    expect(done.body).toMatchObject({ success: true, status: 'done' });
    expect((await stateOf(user)).transfers).toHaveLength(1);
  });
});
