/**
 * SANDBOX_SPARSE over real HTTP: a bank that writes every field of the spec's common envelope, `null`
 * where the spec returns it only in other answers (`type`, `msg`, `reference`, the other operation's
 * id), leaves out `userInputs` when it asks nothing, gives `sortCode` as `null` (the one metadata
 * field the spec declares nullable) and `amountDue` as the string the spec declares. The provider
 * client reads each answer (a `null` read as absent), and a deposit through the orchestrator ends done.
 */
import { describe, expect, it } from 'vitest';
import { ProviderClient, type ProviderCredentials } from '#shared/provider/client';
import { NewBeneficiary } from '#shared/provider/interface/schemas';
import { depositWhen, startDeposit } from '../support/deposits.ts';
import { appSecret, createUser, sandboxUrl, stateOf, walletBeneficiary } from '../support/sandbox.ts';

const BANK = 'SANDBOX_SPARSE';
const client = new ProviderClient({ baseUrl: sandboxUrl, timeoutMs: 5_000 });

/** The envelope fields a sparse answer writes as `null` (besides the other operation's id). */
const nulled = { type: null, msg: null, reference: null };

async function sparseUser() {
  const user = await createUser(BANK);
  const credentials: ProviderCredentials = {
    accessToken: user.accessToken,
    appSecret,
    userSecret: user.userSecret,
  };
  return { user, credentials };
}

describe('SANDBOX_SPARSE: what the bank answers', () => {
  it('metadata, the beneficiary list and the card balance: nulls where the spec allows, nothing else changed', async () => {
    // prepare
    const { user } = await sparseUser();

    // act
    const metadata = await user.call('/v1/metadata/accounts/get', { sync: true });
    const listed = await user.call('/v1/payment/beneficiaries/get', { sync: true });
    const balance = await user.call('/v2/data/balance/get', { sync: true, cardID: user.cardId });

    // assess
    expect(metadata.body).toEqual({
      jobID: expect.any(String),
      operationID: null,
      success: true,
      status: 'done',
      ...nulled,
      accountsMetadata: expect.objectContaining({ bankName: 'Sandbox Sparse Bank', sortCode: null }),
    });
    expect(listed.body).toEqual({
      jobID: expect.any(String),
      operationID: null,
      success: true,
      status: 'done',
      ...nulled,
      beneficiaries: [],
    });
    expect(balance.body).toEqual({
      operationID: expect.any(String),
      jobID: null,
      success: true,
      status: 'done',
      ...nulled,
      balance: expect.objectContaining({ amountDue: expect.stringMatching(/^\d+\.\d{2}$/) }),
    });
    for (const reply of [metadata, listed, balance]) expect(reply.body).not.toHaveProperty('userInputs');
  });

  it('reads back the same answers through /v2/operation/get', async () => {
    // prepare
    const { user } = await sparseUser();
    const metadata = await user.call('/v1/metadata/accounts/get', { sync: true });
    const balance = await user.call('/v2/data/balance/get', { sync: true, cardID: user.cardId });

    // act
    const metadataBack = await user.call('/v2/operation/get', { jobID: metadata.body.jobID });
    const balanceBack = await user.call('/v2/operation/get', { operationID: balance.body.operationID });

    // assess
    // Beside them, the operation as the dapi-v2 dialect reads it (`opInfo`, on the path both share).
    const done = { opInfo: expect.objectContaining({ status: 'done' }) };
    expect(metadataBack.body).toEqual({ ...metadata.body, ...done });
    expect(balanceBack.body).toEqual({ ...balance.body, ...done });
  });
});

describe('SANDBOX_SPARSE: the provider client reads every answer', () => {
  it('metadata, list, creation, card balance, a transfer and its read: each an answer, a null read as absent', async () => {
    // prepare
    const { user, credentials } = await sparseUser();

    // act
    const metadata = await client.getMetadata(credentials);
    const empty = await client.listBeneficiaries(credentials);
    const created = await client.createBeneficiary(credentials, NewBeneficiary.parse(walletBeneficiary()));
    const listed = await client.listBeneficiaries(credentials);
    const receiverID = listed.response.beneficiaries?.[0]?.id ?? '';
    const balance = await client.getCardBalance(credentials, user.cardId);
    const submitted = await client.createTransfer(
      credentials,
      { amountMinor: 2_500, currency: 'AED', senderID: user.accountId, receiverID },
      undefined,
      { sync: false },
    );
    const read = await client.getOperation(credentials, { operationID: submitted.id });

    // assess
    expect(metadata).toMatchObject({ status: 'done', response: { accountsMetadata: { sortCode: null } } });
    expect(metadata.response).not.toHaveProperty('type');
    expect(metadata.response).not.toHaveProperty('operationID');
    expect(empty).toMatchObject({ status: 'done', response: { beneficiaries: [] } });
    expect(created).toMatchObject({ status: 'done', response: { reference: expect.any(String) } });
    expect(listed.response.beneficiaries).toEqual([expect.objectContaining({ id: expect.any(String) })]);
    expect(balance).toMatchObject({
      status: 'done',
      response: { balance: { amountDue: expect.any(String) } },
    });
    expect(balance.response).not.toHaveProperty('jobID');
    expect(submitted.status).toMatch(/^(initialized|done)$/);
    expect(read.status === 'initialized' || read.status === 'done').toBe(true);
    expect((await stateOf(user)).transfers).toHaveLength(1);
  });
});

describe('SANDBOX_SPARSE: a deposit through the orchestrator', () => {
  it('ends done, with one transfer at the bank', async () => {
    // prepare
    const user = await createUser(BANK);

    // act
    const started = await startDeposit(user, { amount: 25 });
    const done = await depositWhen(user, started.body.operationID);

    // assess
    expect(done).toMatchObject({ status: 'done', reference: expect.any(String) });
    const { balance, transfers } = await stateOf(user);
    expect(transfers).toHaveLength(1);
    expect(balance).toBe(user.balance - 25);
  });
});
