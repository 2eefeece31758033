/**
 * The typed client's `answer` and `waitFor`, over a fetch that plays the API: a
 * question is answered once through `onQuestion` (by id and answer, nothing else), reads back off
 * while nothing changes, a read with no answer is tried again, and the signal ends the wait.
 */
import { describe, expect, it } from 'vitest';
import { type DepositOf, DepositsClient } from '#shared/deposits-api/client';

const base = {
  operationID: 'dep_1',
  step: 'transfer',
  amount: 10,
  currency: 'AED',
  walletAccountID: 'wallet-aed',
  senderID: 'acc-1',
  history: [],
  createdAt: '2026-11-22T07:35:06.813Z',
  updatedAt: '2026-11-22T07:35:06.813Z',
};
const asking = {
  ...base,
  status: 'user_input_required',
  success: true,
  userInputs: [{ id: 'otp', index: 0, query: 'OTP', answer: '' }],
  inputExpiresAt: '2026-11-22T07:41:06.813Z',
};
const working = { ...base, status: 'initialized', success: true };
const done = { ...base, status: 'done', success: true, step: 'completed', reference: 'TRF1' };

/** A fetch answering each read with the next of `reads` (the last one again), and recording each call. */
function api(reads: (object | 'down')[]) {
  const calls: { path: string; body: unknown; headers: Record<string, string> }[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    const path = new URL(url).pathname;
    calls.push({
      path,
      body: JSON.parse(String(init.body)),
      headers: init.headers as Record<string, string>,
    });
    if (path === '/v1/deposits/answer') return Response.json(working);
    const next = reads.length > 1 ? reads.shift() : reads[0];
    if (next === 'down') return new Response('bad gateway', { status: 502 });
    return Response.json(next);
  }) as typeof globalThis.fetch;
  return { calls, client: new DepositsClient({ baseUrl: 'http://api.test', fetch }) };
}

describe('waitFor', () => {
  it('answers each question once, by id and answer alone, and ends with the deposit done', async () => {
    const { calls, client } = api([working, asking, asking, working, 'down', done]);
    const asked: DepositOf<'user_input_required'>[] = [];

    const ended = await client.waitFor('dep_1', {
      initialDelayMs: 1,
      onQuestion: (deposit) => {
        asked.push(deposit);
        return [{ id: 'otp', answer: '123456' }];
      },
    });

    expect(ended).toMatchObject({ status: 'done', reference: 'TRF1' });
    expect(asked).toHaveLength(1);
    const answers = calls.filter((call) => call.path === '/v1/deposits/answer');
    expect(answers.map((call) => call.body)).toEqual([
      { operationID: 'dep_1', userInputs: [{ id: 'otp', answer: '123456' }] },
    ]);
    // By id alone: no connection, no secret.
    expect(calls.every((call) => !('x-provider-authorization' in call.headers))).toBe(true);
  });

  it('without onQuestion, ends with the asking deposit', async () => {
    const { client } = api([working, asking]);

    const ended = await client.waitFor('dep_1', { initialDelayMs: 1 });

    expect(ended.status).toBe('user_input_required');
  });

  it('waits longer between reads each time, up to its most', async () => {
    const { calls, client } = api([working, working, working, working, done]);
    const started = Date.now();

    await client.waitFor('dep_1', { initialDelayMs: 20, factor: 2, maxDelayMs: 40 });

    // 20 + 40 + 40 + 40 ms between the five reads
    expect(Date.now() - started).toBeGreaterThanOrEqual(130);
    expect(calls).toHaveLength(5);
  });

  it("rejects with the signal's reason once it aborts", async () => {
    const { client } = api([working]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('enough')), 30);

    await expect(client.waitFor('dep_1', { initialDelayMs: 5, signal: controller.signal })).rejects.toThrow(
      'enough',
    );
  });
});

describe('answer', () => {
  it('sends the id and answer of each input, with the connection when given', async () => {
    const { calls, client } = api([working]);
    const connection = { accessToken: 'tok', appSecret: 'app', userSecret: 'usr' };

    await client.answer('dep_1', [{ id: 'otp', answer: '1' }], connection);

    expect(calls[0]).toMatchObject({
      path: '/v1/deposits/answer',
      body: {
        appSecret: 'app',
        userSecret: 'usr',
        operationID: 'dep_1',
        userInputs: [{ id: 'otp', answer: '1' }],
      },
      headers: { 'x-provider-authorization': 'Bearer tok' },
    });
  });
});
