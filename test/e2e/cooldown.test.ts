/**
 * Beneficiary cool-down over real HTTP: a new beneficiary is hidden from the list and refuses
 * transfers until its cool-down has passed (SANDBOX_COOLDOWN: 24 hours; SANDBOX_COOLDOWN_FAST:
 * 0.001 hours, 3.6 s, so the release itself can be watched).
 */
import { describe, expect, it } from 'vitest';
import { CreateBeneficiaryResponse, ListBeneficiariesResponse } from '#shared/spec/responses';
import {
  createUser,
  eventually,
  failedOperation,
  stateOf,
  type TestUser,
  walletBeneficiary,
} from '../support/sandbox.ts';

const hourMs = 3_600_000;

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
  it('creates the beneficiary but hides it and refuses transfers until 24 h from now', async () => {
    // prepare
    const user = await createUser('SANDBOX_COOLDOWN');
    const before = Date.now();

    // act
    const created = await createBeneficiary(user);
    const beneficiaryId = CreateBeneficiaryResponse.parse(created.body).reference ?? '';
    const list = await listed(user);
    const refused = await transfer(user, beneficiaryId);
    const after = Date.now();

    // assess
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      jobID: expect.stringMatching(/\S/),
      success: true,
      status: 'done',
      reference: expect.stringMatching(/\S/),
    });
    expect(list).toEqual([]);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual(failedOperation('BENEFICIARY_COOL_DOWN_PERIOD', 'operationID'));
    const until = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/.exec(refused.body.msg)?.[0];
    expect(until, `no ISO time in "${refused.body.msg}"`).toBeDefined();
    const untilMs = Date.parse(until ?? '');
    expect(untilMs).toBeGreaterThanOrEqual(before + 24 * hourMs - 60_000);
    expect(untilMs).toBeLessThanOrEqual(after + 24 * hourMs + 60_000);
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
    const createdAt = Date.now();
    const created = await createBeneficiary(user);
    const beneficiaryId = CreateBeneficiaryResponse.parse(created.body).reference ?? '';
    const listedEarly = await listed(user);
    const refusedEarly = await transfer(user, beneficiaryId);
    if (Date.now() - createdAt >= 3_000) throw new Error('the early checks did not fit in the cool-down');

    // act
    const released = await eventually(
      async () => (await listed(user)).find(({ id }) => id === beneficiaryId),
      10_000,
    );
    const paid = await transfer(user, beneficiaryId);

    // assess
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ success: true, status: 'done' });
    expect(listedEarly).toEqual([]);
    expect(refusedEarly.status).toBe(422);
    expect(refusedEarly.body).toEqual(failedOperation('BENEFICIARY_COOL_DOWN_PERIOD', 'operationID'));
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
