/**
 * The client in the `dapi-v2` dialect: what each call puts on the wire (path, headers, body), as
 * docs/provider-v2.md §1-2 records the provider's SDKs and documentation sending it. A mock `fetch`
 * plays the provider: no local stand-in of the v2 provider exists yet (the sandbox's v2 side comes
 * next); once it does, test/e2e/provider-client.test.ts can run in both dialects.
 */
import { describe, expect, it } from 'vitest';
import {
  credentials,
  fakeProvider,
  inlineWallet,
  metadata,
  walletBeneficiary,
} from '../support/fake-provider.ts';

const secrets = { appSecret: 'app-secret', userSecret: 'user-secret' };

/** A provider that answers every operation `done` with its `operationID`, as v2 answers. */
function v2Provider(options: { autoflowAction?: string } = {}) {
  return fakeProvider(
    (path) => ({
      body: {
        operationID: 'CBDUAEAD:0b6f0c4e-2d1a-4a53-9f3e-5b8c1d2e3f40',
        success: true,
        status: 'done',
        ...(path.endsWith('/ExchangeToken') ? { accessToken: 'token-1', tokenID: 't', userID: 'u' } : {}),
        ...(path.endsWith('/metadata/accounts/get') ? { accountsMetadata: metadata } : {}),
        ...(path.endsWith('/beneficiaries/get') ? { beneficiaries: [] } : {}),
        ...(path.includes('/transfer/') ? { reference: 'REF-1' } : {}),
        ...(path.endsWith('/operation/get') ? { opInfo: { status: 'done' } } : {}),
      },
    }),
    { dialect: 'dapi-v2', ...options },
  );
}

describe('dapi-v2 requests', () => {
  it('exchanges the token at /v2/auth/ExchangeToken, without a bearer', async () => {
    const { client, sent } = v2Provider();

    const exchanged = await client.exchangeToken('app-secret', 'code-1', 'conn-1');

    expect(exchanged).toEqual({ success: true, status: 'done', accessToken: 'token-1' });
    expect(sent).toEqual([
      {
        path: '/v2/auth/ExchangeToken',
        headers: { 'content-type': 'application/json' },
        text: '{"appSecret":"app-secret","accessCode":"code-1","connectionID":"conn-1"}',
        body: { appSecret: 'app-secret', accessCode: 'code-1', connectionID: 'conn-1' },
      },
    ]);
  });

  it('asks metadata and the list under /v2 with the secrets alone: no sync, no id', async () => {
    const { client, sent } = v2Provider();

    await client.getMetadata(credentials);
    await client.listBeneficiaries(credentials);

    expect(sent.map(({ path, body }) => [path, body])).toEqual([
      ['/v2/metadata/accounts/get', secrets],
      ['/v2/payment/beneficiaries/get', secrets],
    ]);
    expect(sent[0]?.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer token-1' });
  });

  it('creates a beneficiary with its fields at the top level, the empty ones left out', async () => {
    const { client, sent } = v2Provider();

    await client.createBeneficiary(credentials, walletBeneficiary);

    expect(sent[0]).toMatchObject({ path: '/v2/payment/beneficiaries/create' });
    expect(sent[0]?.body).toEqual({
      ...secrets,
      type: 'local',
      swiftCode: 'WALTAEAD',
      name: 'Acme Wallet LLC',
      iban: 'AE070331234567890123456',
      accountNumber: '1234567890123456',
      address: { line1: 'Sheikh Zayed Road', line2: 'Dubai', line3: 'United Arab Emirates' },
      country: 'UNITED ARAB EMIRATES',
    });
  });

  it('creates a transfer without sync, even when the step asks for sync: false', async () => {
    const { client, sent } = v2Provider();
    const order = { amountMinor: 25_050, currency: 'AED' as const, senderID: 'acc_1', receiverID: 'ben_1' };

    await client.createTransfer(credentials, order, undefined, { sync: false });

    expect(sent.map(({ path, text }) => [path, text])).toEqual([
      [
        '/v2/payment/transfer/create',
        '{"appSecret":"app-secret","userSecret":"user-secret","amount":250.5,"senderID":"acc_1","receiverID":"ben_1"}',
      ],
    ]);
  });

  it("sends scenario 2's details as top-level name, iban and accountNumber beside receiverID", async () => {
    const { client, sent } = v2Provider();
    const order = { amountMinor: 1_500, currency: 'KWD' as const, senderID: 'acc_1', receiverID: 'ben_1' };

    await client.createTransfer(credentials, { ...order, beneficiary: inlineWallet }, undefined, {
      sync: false,
    });

    expect(sent[0]?.body).toEqual({
      ...secrets,
      amount: 1.5,
      senderID: 'acc_1',
      receiverID: 'ben_1',
      name: 'Acme Wallet LLC',
      iban: 'AE070331234567890123456',
      accountNumber: '1234567890123456',
    });
  });

  it('sends the inline receiver to /v2/payment/transfer/autoflow as `beneficiary`, with no action', async () => {
    const { client, sent } = v2Provider({ autoflowAction: 'WALLET_TOPUP' });
    const order = {
      amountMinor: 10_000,
      currency: 'AED' as const,
      senderID: 'acc_1',
      beneficiary: inlineWallet,
    };

    await client.createAutoflowTransfer(credentials, order);

    expect(sent[0]?.path).toBe('/v2/payment/transfer/autoflow');
    expect(sent[0]?.body).toEqual({
      ...secrets,
      amount: 100,
      senderID: 'acc_1',
      beneficiary: {
        swiftCode: 'WALTAEAD',
        name: 'Acme Wallet LLC',
        iban: 'AE070331234567890123456',
        accountNumber: '1234567890123456',
        address: { line1: 'Sheikh Zayed Road', line2: 'Dubai', line3: 'United Arab Emirates' },
        country: 'AE',
      },
    });
  });

  it('asks the card balance by cardID on the shared /v2/data/balance/get', async () => {
    const { client, sent } = v2Provider();

    await client.getCardBalance(credentials, 'card_1');

    expect(sent.map(({ path, body }) => [path, body])).toEqual([
      ['/v2/data/balance/get', { ...secrets, cardID: 'card_1' }],
    ]);
  });

  it('reads an operation by operationID, whichever id the caller had', async () => {
    const { client, sent } = v2Provider();

    await client.getOperation(credentials, { operationID: 'op_1' });
    await client.getOperation(credentials, { jobID: 'job_1' });

    expect(sent.map(({ path, body }) => [path, body])).toEqual([
      ['/v2/operation/get', { ...secrets, operationID: 'op_1' }],
      ['/v2/operation/get', { ...secrets, operationID: 'job_1' }],
    ]);
  });

  it('answers a question on the same path, with operationID and userInputs, for every call', async () => {
    const { client, sent } = v2Provider();
    const answer = { id: 'op_q', userInputs: [{ id: 'otp', index: 0, query: 'OTP?', answer: '123456' }] };
    const order = { amountMinor: 1_000, currency: 'AED' as const, senderID: 'acc_1' };

    await client.getMetadata(credentials, answer);
    await client.listBeneficiaries(credentials, answer);
    await client.createBeneficiary(credentials, walletBeneficiary, answer);
    await client.createTransfer(credentials, { ...order, receiverID: 'ben_1' }, answer, { sync: false });
    await client.createAutoflowTransfer(credentials, { ...order, beneficiary: inlineWallet }, answer);
    await client.getCardBalance(credentials, 'card_1', answer);

    expect(sent.map(({ path }) => path)).toEqual([
      '/v2/metadata/accounts/get',
      '/v2/payment/beneficiaries/get',
      '/v2/payment/beneficiaries/create',
      '/v2/payment/transfer/create',
      '/v2/payment/transfer/autoflow',
      '/v2/data/balance/get',
    ]);
    for (const { body } of sent) {
      expect(body).toMatchObject({ operationID: 'op_q', userInputs: answer.userInputs });
      expect(body).not.toHaveProperty('jobID');
      expect(body).not.toHaveProperty('sync');
    }
  });
});
