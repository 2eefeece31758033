/**
 * The provider client over the running sandbox: the token exchange, the spec's first scenario with
 * minor units inside, a receiver sent inline, user input out and answers in, refusals typed with
 * their Retry-After, and the outcomes it cannot know (a 5xx, a slow provider, an unreachable one).
 * Answers the sandbox does not give: provider-client-misbehaving.test.ts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  ProviderClient,
  type ProviderCredentials,
  ProviderRefusal,
  ProviderUnknownOutcome,
} from '#shared/provider/client';
import { InlineBeneficiary, NewBeneficiary } from '#shared/provider/interface/schemas';
import { failureOf } from '../support/fake-provider.ts';
import {
  appSecret,
  createUser,
  post,
  sandboxUrl,
  walletBeneficiary,
  walletInline,
} from '../support/sandbox.ts';

const client = new ProviderClient({ baseUrl: sandboxUrl, timeoutMs: 5_000 });

async function userOn(bankId: string, options: { balance?: number } = {}) {
  const user = await createUser(bankId, options);
  const credentials: ProviderCredentials = {
    accessToken: user.accessToken,
    appSecret,
    userSecret: user.userSecret,
  };
  return { user, credentials };
}

describe('provider client over the sandbox', () => {
  it('exchanges an access code for a token', async () => {
    // prepare
    const created = await post('/sandbox/users', { appSecret, bankId: 'SANDBOX_BENEFICIARY' });
    // act
    const exchanged = await client.exchangeToken(
      appSecret,
      created.body.accessCode,
      created.body.connectionID,
    );
    // assess
    expect(exchanged).toMatchObject({ success: true, status: 'done', accessToken: expect.any(String) });
  });

  it('runs scenario 1 end to end with minor units on the inside', async () => {
    const { user, credentials } = await userOn('SANDBOX_BENEFICIARY');

    const metadata = await client.getMetadata(credentials);
    const created = await client.createBeneficiary(credentials, NewBeneficiary.parse(walletBeneficiary()));
    const listed = await client.listBeneficiaries(credentials);
    const transfer = await client.createTransfer(credentials, {
      amountMinor: 12_345,
      currency: 'AED',
      senderID: user.accountId,
      // The list gives the id; the creation's reference is a receipt number.
      receiverID: listed.response.beneficiaries?.[0]?.id ?? '',
    });

    expect(metadata.status).toBe('done');
    expect(metadata.response.accountsMetadata?.isCreateBeneficiaryEndpointRequired).toBe(true);
    expect(created.status).toBe('done');
    expect(listed.response.beneficiaries?.map((b) => b.id)).toEqual([expect.any(String)]);
    expect(listed.response.beneficiaries?.map((b) => b.id)).not.toContain(created.response.reference);
    expect(transfer).toMatchObject({ status: 'done', response: { reference: expect.any(String) } });
    const state = await user.state();
    expect(state.accounts[0].balance).toBe(99_876.55);
    expect(state.transfers[0]).toMatchObject({ amount: 123.45, operationID: transfer.id });
  });

  it('sends the receiver inline on a bank without beneficiaries, in three-decimal currencies too', async () => {
    const { user, credentials } = await userOn('SANDBOX_NO_BENEFICIARY');
    const transfer = await client.createAutoflowTransfer(credentials, {
      amountMinor: 5_000,
      currency: 'AED',
      senderID: user.accountId,
      beneficiary: InlineBeneficiary.parse(walletInline()),
    });
    expect(transfer.status).toBe('done');
    expect((await user.state()).accounts[0].balance).toBe(99_950);
  });

  it('carries user input out and answers back in', async () => {
    const { user, credentials } = await userOn('SANDBOX_OTP');
    const asked = await client.getCardBalance(credentials, user.cardId);
    expect(asked.status).toBe('user_input_required');
    if (asked.status !== 'user_input_required') return;

    const answered = await client.getCardBalance(credentials, user.cardId, {
      id: asked.id,
      userInputs: asked.userInputs.map((input) => ({ ...input, answer: '123456' })),
    });

    expect(answered).toMatchObject({ status: 'done', id: asked.id });
    expect(answered.response.balance?.currency.code).toBe('AED');
    const readBack = await client.getOperation(credentials, { operationID: asked.id });
    expect(readBack.status).toBe('done');
  });

  it('turns a failed envelope into a typed refusal', async () => {
    const { user, credentials } = await userOn('SANDBOX_NO_BENEFICIARY', { balance: 20 });

    const refused = await failureOf(
      client.createAutoflowTransfer(credentials, {
        amountMinor: 2_001,
        currency: 'AED',
        senderID: user.accountId,
        beneficiary: InlineBeneficiary.parse(walletInline()),
      }),
    );
    const unauthorized = await failureOf(client.getMetadata({ ...credentials, userSecret: 'wrong' }));

    expect(refused).toBeInstanceOf(ProviderRefusal);
    expect(refused).toMatchObject({
      type: 'INSUFFICIENT_BALANCE',
      httpStatus: 422,
      operationId: expect.any(String),
    });
    expect(unauthorized).toMatchObject({
      type: 'UNAUTHORIZED',
      msg: 'Invalid access token',
      httpStatus: 401,
    });
  });

  it("reads a refusal's Retry-After as retryAfterMs, with the operation it names", async () => {
    const { user, credentials } = await userOn('SANDBOX_NO_BENEFICIARY');
    const done = await client.createAutoflowTransfer(credentials, {
      amountMinor: 1_000,
      currency: 'AED',
      senderID: user.accountId,
      beneficiary: InlineBeneficiary.parse(walletInline()),
    });
    await post('/sandbox/faults', {
      appSecret,
      connectionID: user.connectionID,
      faults: [
        {
          path: '/v2/operation/get',
          outcome: 'refusal',
          status: 429,
          type: 'TOO_MANY_REQUESTS',
          retryAfterSeconds: 30,
          namesOperation: true,
          times: 1,
        },
      ],
    });

    const limited = await failureOf(client.getOperation(credentials, { operationID: done.id }));
    const unlimited = await failureOf(client.getMetadata({ ...credentials, userSecret: 'wrong' }));

    expect(limited).toBeInstanceOf(ProviderRefusal);
    expect(limited).toMatchObject({
      type: 'TOO_MANY_REQUESTS',
      httpStatus: 429,
      operationId: done.id,
      retryAfterMs: 30_000,
    });
    expect(unlimited).toMatchObject({ type: 'UNAUTHORIZED', retryAfterMs: undefined });
  });

  it('reports a 5xx as an unknown outcome, even when the transfer took effect', async () => {
    const { user, credentials } = await userOn('SANDBOX_NO_BENEFICIARY');
    await post('/sandbox/faults', {
      appSecret,
      connectionID: user.connectionID,
      faults: [{ outcome: 'error', status: 503, phase: 'after', times: 1 }],
    });

    const outcome = await failureOf(
      client.createAutoflowTransfer(credentials, {
        amountMinor: 1_000,
        currency: 'AED',
        senderID: user.accountId,
        beneficiary: InlineBeneficiary.parse(walletInline()),
      }),
    );

    expect(outcome).toBeInstanceOf(ProviderUnknownOutcome);
    expect(outcome).toMatchObject({ reason: 'server_error', httpStatus: 503 });
    expect((await user.state()).transfers).toHaveLength(1);
  });

  it('reports a slow provider as a timeout', async () => {
    const { user, credentials } = await userOn('SANDBOX_BENEFICIARY');
    await post('/sandbox/faults', {
      appSecret,
      connectionID: user.connectionID,
      faults: [{ outcome: 'timeout', timeoutMs: 1_500, times: 1 }],
    });
    const impatient = new ProviderClient({ baseUrl: sandboxUrl, timeoutMs: 200 });

    const outcome = await failureOf(impatient.getMetadata(credentials));

    expect(outcome).toMatchObject({ name: 'ProviderUnknownOutcome', reason: 'timeout' });
  });

  it('reports an unreachable provider as a network failure', async () => {
    const closed = createServer();
    await new Promise<void>((ready) => closed.listen(0, '127.0.0.1', ready));
    const { port } = closed.address() as AddressInfo;
    await new Promise((done) => closed.close(done));
    const unreachable = new ProviderClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 2_000 });

    const outcome = await failureOf(
      unreachable.getMetadata({ accessToken: 't', appSecret: 'a', userSecret: 'u' }),
    );

    expect(outcome).toMatchObject({ name: 'ProviderUnknownOutcome', reason: 'network' });
  });
});
