/**
 * The provider client's reading of answers that write `null` for what they do not return (as
 * `SANDBOX_SPARSE` does, over HTTP in test/e2e/sparse-bank.test.ts): a field the spec returns only in
 * some answers read as absent, a refusal naming its operation as `null` a refusal naming none, and a
 * `null` where the spec allows none still an unknown outcome. Through a fetch that answers as a
 * provider would, and the `action` the client sends on the inline transfer.
 */
import { describe, expect, it } from 'vitest';
import { ProviderClient, ProviderRefusal, ProviderUnknownOutcome } from '#shared/provider/client';
import { InlineBeneficiary } from '#shared/provider/interface/schemas';
import { failureOf } from '../support/fake-provider.ts';

const credentials = { accessToken: 'token', appSecret: 'app', userSecret: 'user' };

/** A client whose every request is answered 200 (or `status`) with `body`; the bodies it sent, kept. */
function answering(body: unknown, status = 200, options: { autoflowAction?: string } = {}) {
  const sent: Record<string, unknown>[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  };
  const client = new ProviderClient({ baseUrl: 'http://provider.test', timeoutMs: 1_000, fetch, ...options });
  return { client, sent };
}

const nulled = { type: null, msg: null, userInputs: null, reference: null };

describe('answers that write null for what they do not return', () => {
  it('a done transfer: its nulls read as absent, its reference kept', async () => {
    const { client } = answering({
      operationID: 'op_1',
      jobID: null,
      success: true,
      status: 'done',
      ...nulled,
      reference: 'REF-1',
    });

    const answer = await client.createTransfer(credentials, {
      amountMinor: 1_000,
      currency: 'AED',
      senderID: 'acc_1',
      receiverID: 'ben_1',
    });

    expect(answer).toEqual({
      status: 'done',
      id: 'op_1',
      response: { operationID: 'op_1', success: true, status: 'done', reference: 'REF-1' },
    });
  });

  it('a card balance with amountDue as the string the spec declares', async () => {
    const balance = {
      availableBalance: 10,
      outstandingBalance: 5,
      amountDue: '5.00',
      cardNumber: '**** 1234',
      dueDate: '2026-12-01T00:00:00Z',
      currency: { code: 'AED', name: 'UAE Dirham' },
    };
    const { client } = answering({
      operationID: 'op_2',
      jobID: null,
      success: true,
      status: 'done',
      ...nulled,
      balance,
    });

    const answer = await client.getCardBalance(credentials, 'card_1');

    expect(answer.response.balance).toEqual(balance);
  });

  it('a refusal whose operation id is null: a refusal naming no operation', async () => {
    const { client } = answering(
      {
        operationID: null,
        jobID: null,
        success: false,
        status: 'failed',
        type: 'INSUFFICIENT_BALANCE',
        msg: 'no',
      },
      422,
    );

    const refused = await failureOf(
      client.createTransfer(credentials, {
        amountMinor: 1_000,
        currency: 'AED',
        senderID: 'a',
        receiverID: 'b',
      }),
    );

    expect(refused).toBeInstanceOf(ProviderRefusal);
    expect(refused).toMatchObject({ type: 'INSUFFICIENT_BALANCE', operationId: undefined });
  });

  it.each([
    ['the operation id itself', { operationID: null, success: true, status: 'done', reference: 'REF-1' }],
    ['success', { operationID: 'op_1', success: null, status: 'done', reference: 'REF-1' }],
    ['status', { operationID: 'op_1', success: true, status: null, reference: 'REF-1' }],
  ])('a transfer answer with %s null stays an unknown outcome', async (_field, body) => {
    const { client } = answering(body);

    const unknown = await failureOf(
      client.createTransfer(credentials, {
        amountMinor: 1_000,
        currency: 'AED',
        senderID: 'a',
        receiverID: 'b',
      }),
    );

    expect(unknown).toBeInstanceOf(ProviderUnknownOutcome);
  });

  it('metadata with a null the spec does not allow (bankName) stays an unknown outcome', async () => {
    const { client } = answering({
      jobID: 'job_1',
      success: true,
      status: 'done',
      accountsMetadata: { bankName: null },
    });

    expect(await failureOf(client.getMetadata(credentials))).toBeInstanceOf(ProviderUnknownOutcome);
  });
});

describe("the inline transfer's action", () => {
  const beneficiary = InlineBeneficiary.parse({
    swiftCode: 'WALTAEAD',
    name: 'Acme Wallet LLC',
    iban: 'AE070331234567890123456',
    country: 'AE',
  });
  const done = { operationID: 'op_1', success: true, status: 'done', reference: 'REF-1' };
  const order = { amountMinor: 1_000, currency: 'AED' as const, senderID: 'acc_1', beneficiary };

  it('is the configured name of the flow', async () => {
    const { client, sent } = answering(done, 200, { autoflowAction: 'WALLET_TOPUP' });

    await client.createAutoflowTransfer(credentials, order);

    expect(sent[0]?.action).toBe('WALLET_TOPUP');
  });

  it('is `transfer` when none is configured', async () => {
    const { client, sent } = answering(done);

    await client.createAutoflowTransfer(credentials, order);

    expect(sent[0]?.action).toBe('transfer');
  });
});
