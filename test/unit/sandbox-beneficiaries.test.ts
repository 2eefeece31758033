/**
 * Beneficiaries: creation, listing (with the transfer type each would get), the
 * refusals (duplicate, bad IBAN, missing fields, unsupported bank) and isolation between users.
 *
 * In process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { describe, expect, it } from 'vitest';
import { CreateBeneficiaryResponse, ListBeneficiariesResponse } from '#shared/provider/interface/responses';
import {
  createUser,
  failed,
  failedOperation,
  givenBeneficiary,
  ibanFor,
  type TestUser,
  walletBeneficiary,
  walletIban,
} from '../support/in-process-sandbox.ts';

/** Accounts at the sandbox bank itself (SWIFT SBXBAEAD), not the wallet's. */
const sameBankIban = ibanFor('AE', '0441111222233334444');
const otherSameBankIban = ibanFor('AE', '0445555666677778888');

const createBeneficiary = (user: TestUser, overrides: Record<string, unknown> = {}) =>
  user.call('/v1/payment/beneficiaries/create', { sync: true, ...walletBeneficiary(overrides) });

const listBeneficiaries = (user: TestUser) => user.call('/v1/payment/beneficiaries/get', { sync: true });

describe('beneficiaries on a bank that requires them (SANDBOX_BENEFICIARY)', () => {
  it('creates a beneficiary whose reference is its id, listed as approved and local', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const created = await createBeneficiary(user);
    const listed = await listBeneficiaries(user);

    // assess
    expect(created.status).toBe(200);
    const creation = CreateBeneficiaryResponse.parse(created.body);
    expect(creation).toEqual({
      jobID: expect.any(String),
      success: true,
      status: 'done',
      reference: expect.any(String),
    });
    expect(listed.status).toBe(200);
    const listing = ListBeneficiariesResponse.parse(listed.body);
    expect(listing).toEqual({
      jobID: expect.any(String),
      success: true,
      status: 'done',
      beneficiaries: [
        {
          // The bank's id, not the creation's reference (a receipt number).
          id: expect.not.stringMatching(`^${creation.reference}$`),
          name: 'Acme Wallet LLC',
          accountNumber: '1234567890123456',
          type: 'local',
          status: 'approved',
        },
      ],
    });
    expect(listing.jobID).not.toBe(creation.jobID);
  });

  it('the id the list shows for the created beneficiary is usable as receiverID of a transfer', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const beneficiaryId = await givenBeneficiary(user);

    // act
    const transfer = await user.call('/v1/payment/transfer/create', {
      sync: true,
      amount: 10,
      senderID: user.accountId,
      receiverID: beneficiaryId,
    });

    // assess
    expect(transfer.status).toBe(200);
    expect(transfer.body).toMatchObject({ success: true, status: 'done' });
    const { transfers } = await user.state();
    expect(transfers).toHaveLength(1);
    expect(transfers[0].receiver.beneficiaryID).toBe(beneficiaryId);
  });

  it("lists a beneficiary at the bank's own SWIFT code (8 or 11 characters) as type same", async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const walletId = await givenBeneficiary(user);
    const sameId = await givenBeneficiary(user, { iban: sameBankIban, swiftCode: 'SBXBAEAD' });
    const sameBranchId = await givenBeneficiary(user, { iban: otherSameBankIban, swiftCode: 'SBXBAEADXXX' });

    // act
    const listed = await listBeneficiaries(user);

    // assess
    const { beneficiaries = [] } = ListBeneficiariesResponse.parse(listed.body);
    const typeOf = Object.fromEntries(beneficiaries.map(({ id, type }) => [id, type]));
    expect(typeOf).toEqual({ [walletId]: 'local', [sameId]: 'same', [sameBranchId]: 'same' });
  });

  it.each([
    ['the same IBAN', walletIban],
    ['the IBAN with spaces and in lowercase', 'ae07 0331 2345 6789 0123 456'],
  ])('refuses a duplicate with %s: 409 BENEFICIARY_ALREADY_EXISTS carrying its jobID', async (_, iban) => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const firstId = await givenBeneficiary(user);

    // act
    const duplicate = await createBeneficiary(user, { iban, name: 'Someone Else' });

    // assess
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual(failedOperation('BENEFICIARY_ALREADY_EXISTS', 'jobID'));
    const recorded = await user.call('/v1/operation/get', { jobID: duplicate.body.jobID });
    // The same envelope, read back by another request (whose id it does not carry).
    const { requestId: _requestId, ...answered } = duplicate.body;
    // Beside it, the operation as the dapi-v2 dialect reads it (`opInfo`, on the path both share).
    expect(recorded.body).toEqual({
      ...answered,
      opInfo: expect.objectContaining({ status: 'failed', errorType: 'BENEFICIARY_ALREADY_EXISTS' }),
    });
    const { beneficiaries } = ListBeneficiariesResponse.parse((await listBeneficiaries(user)).body);
    expect(beneficiaries?.map(({ id }) => id)).toEqual([firstId]);
  });

  it('refuses an IBAN with wrong check digits: 400 INVALID_IBAN, nothing created', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const created = await createBeneficiary(user, { iban: 'AE080331234567890123456' });

    // assess
    expect(created.status).toBe(400);
    expect(created.body).toEqual(failedOperation('INVALID_IBAN', 'jobID'));
    expect(ListBeneficiariesResponse.parse((await listBeneficiaries(user)).body).beneficiaries).toEqual([]);
  });

  it.each(['name', 'iban', 'swiftCode', 'country'])(
    'refuses a beneficiary without %s: 400 BAD_REQUEST naming the field',
    async (field) => {
      // prepare
      const user = await createUser('SANDBOX_BENEFICIARY');
      const withoutField = Object.fromEntries(
        Object.entries(walletBeneficiary()).filter(([key]) => key !== field),
      );

      // act
      const created = await user.call('/v1/payment/beneficiaries/create', { sync: true, ...withoutField });

      // assess
      expect(created.status).toBe(400);
      expect(created.body).toEqual(failed('BAD_REQUEST'));
      expect(created.body.details).toEqual(expect.arrayContaining([expect.stringMatching(`^${field}:`)]));
      expect(ListBeneficiariesResponse.parse((await listBeneficiaries(user)).body).beneficiaries).toEqual([]);
    },
  );

  it('refuses a creation without sync: 400 BAD_REQUEST', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const created = await user.call('/v1/payment/beneficiaries/create', walletBeneficiary());

    // assess
    expect(created.status).toBe(400);
    expect(created.body).toEqual(failed('BAD_REQUEST'));
    expect(created.body.details).toEqual(expect.arrayContaining([expect.stringMatching(/^sync:/)]));
  });

  it('refuses a listing without sync: 400 BAD_REQUEST', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const listed = await user.call('/v1/payment/beneficiaries/get', {});

    // assess
    expect(listed.status).toBe(400);
    expect(listed.body).toEqual(failed('BAD_REQUEST'));
  });
});

describe('beneficiaries on a bank without them (SANDBOX_NO_BENEFICIARY)', () => {
  it('refuses a creation: 422 BENEFICIARY_NOT_SUPPORTED', async () => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');

    // act
    const created = await createBeneficiary(user);

    // assess
    expect(created.status).toBe(422);
    expect(created.body).toEqual(failedOperation('BENEFICIARY_NOT_SUPPORTED', 'jobID'));
  });

  it('lists no beneficiaries: done with an empty list', async () => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');

    // act
    const listed = await listBeneficiaries(user);

    // assess
    expect(listed.status).toBe(200);
    expect(ListBeneficiariesResponse.parse(listed.body)).toEqual({
      jobID: expect.any(String),
      success: true,
      status: 'done',
      beneficiaries: [],
    });
  });
});

describe('beneficiaries are per user', () => {
  it("two users never see nor use each other's beneficiaries, and may each add the same IBAN", async () => {
    // prepare
    const alice = await createUser('SANDBOX_BENEFICIARY');
    const bob = await createUser('SANDBOX_BENEFICIARY');
    const aliceBeneficiary = await givenBeneficiary(alice);

    // act
    const bobListBefore = await listBeneficiaries(bob);
    const bobPaysAlices = await bob.call('/v1/payment/transfer/create', {
      sync: true,
      amount: 10,
      senderID: bob.accountId,
      receiverID: aliceBeneficiary,
    });
    const bobCreates = await createBeneficiary(bob);
    const aliceList = await listBeneficiaries(alice);
    const bobList = await listBeneficiaries(bob);

    // assess
    expect(ListBeneficiariesResponse.parse(bobListBefore.body).beneficiaries).toEqual([]);
    expect(bobPaysAlices.status).toBe(404);
    expect(bobPaysAlices.body).toEqual(failedOperation('INVALID_BENEFICIARY_ID', 'operationID'));
    expect(bobCreates.status).toBe(200);
    expect(CreateBeneficiaryResponse.parse(bobCreates.body).reference).toEqual(expect.any(String));
    expect(ListBeneficiariesResponse.parse(aliceList.body).beneficiaries?.map(({ id }) => id)).toEqual([
      aliceBeneficiary,
    ]);
    const bobIds = ListBeneficiariesResponse.parse(bobList.body).beneficiaries?.map(({ id }) => id);
    expect(bobIds).toEqual([expect.any(String)]);
    expect(bobIds).not.toContain(aliceBeneficiary);
    expect((await bob.state()).accounts[0].balance).toBe(100_000);
  });
});
