/**
 * Request validation: routes that do not exist, oversized bodies, bad fault headers, and a small
 * fuzz of every route that must never make the sandbox answer a 5xx or anything but JSON. In
 * process: the sandbox's routes composed as their handlers are, over its in-memory fake store (the
 * sanctioned stand-in for its table) and a manual clock (`test/support/in-process-sandbox.ts`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxApi } from '#shared/topology';
import { assessReplies, oddBodies, oddHeaders } from '../support/fuzz.ts';
import {
  createUser,
  eventually,
  post,
  request,
  type TestUser,
  walletInline,
} from '../support/in-process-sandbox.ts';
import { bearer, raw, secretsOf } from '../support/sandbox-validation.ts';

describe('routes that do not exist, oversized bodies and bad fault headers', () => {
  it.each([
    ['GET', '/nope'],
    ['POST', '/v1/nope'],
    ['GET', '/v1/metadata/accounts/get'],
    ['GET', '/v1/payment/transfer/create'],
    ['POST', '/sandbox/banks'],
    ['DELETE', '/sandbox/users'],
  ])('%s %s answers 404 NOT_FOUND', async (method, path) => {
    // act
    const reply = await request(method, path, method === 'GET' ? undefined : {});

    // assess
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({
      success: false,
      status: 'failed',
      requestId: expect.any(String),
      type: 'NOT_FOUND',
      msg: expect.any(String),
    });
    expect(reply.body.msg).toContain(path);
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a body over 1 MiB, and reads a body of exactly 1 MiB', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');
    const envelope = JSON.stringify({ ...secretsOf(user), sync: true, padding: '' });
    const padded = (bytes: number) =>
      JSON.stringify({ ...secretsOf(user), sync: true, padding: 'x'.repeat(bytes - envelope.length) });
    const exactlyLimit = padded(1024 * 1024);
    const overLimit = padded(1024 * 1024 + 1);

    // act
    const over = await post('/v1/metadata/accounts/get', overLimit, bearer(user));
    const atLimit = await post('/v1/metadata/accounts/get', exactlyLimit, bearer(user));

    // assess
    expect(Buffer.byteLength(overLimit)).toBe(1024 * 1024 + 1);
    expect(Buffer.byteLength(exactlyLimit)).toBe(1024 * 1024);
    expect(over.status).toBe(413);
    expect(over.body).toEqual({
      success: false,
      status: 'failed',
      requestId: expect.any(String),
      type: 'PAYLOAD_TOO_LARGE',
      msg: 'Request body is too large',
    });
    expect(atLimit.status).toBe(200);
    expect(atLimit.body).toMatchObject({ success: true, status: 'done' });
  });

  it.each([
    ['x-sandbox-fault', 'explode', 'outcome'],
    ['x-sandbox-fault-status', '418', 'status'],
    ['x-sandbox-fault-phase', 'during', 'phase'],
    ['x-sandbox-latency-ms', '-5', 'latencyMs'],
    ['x-sandbox-latency-ms', 'soon', 'latencyMs'],
    ['x-sandbox-timeout-ms', '999999999', 'timeoutMs'],
  ])('%s: %s answers 400 BAD_REQUEST and nothing happens', async (header, value, field) => {
    // prepare
    const user = await createUser('SANDBOX_NO_BENEFICIARY');
    const transfer = {
      amount: 10,
      senderID: user.accountId,
      action: 'deposit',
      beneficiary: walletInline(),
    };

    // act
    const provider = await user.call('/v1/payment/transfer/autoflow', transfer, { [header]: value });
    const publicRoute = await request('GET', '/sandbox/banks', undefined, { [header]: value });
    const after = await user.state();

    // assess
    const expected = {
      success: false,
      status: 'failed',
      type: 'BAD_REQUEST',
      msg: 'Invalid JSON request',
      requestId: expect.any(String),
      details: [expect.stringContaining(`X-Sandbox header ${field}`)],
    };
    expect(provider.status).toBe(400);
    expect(provider.body).toEqual(expected);
    expect(publicRoute.status).toBe(400);
    expect(publicRoute.body).toEqual(expected);
    expect(after.accounts[0].balance).toBe(100_000);
    expect(after.transfers).toEqual([]);
  });
});

describe('fuzz: odd and oversized bodies and headers never make any route of the sandbox answer 5xx or non-JSON', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser('SANDBOX_BENEFICIARY');
  });

  it.each(sandboxApi.routes)('sandbox: $method $path', async ({ method, path }) => {
    // prepare
    const sends = [
      ...oddBodies({}).map((body) => ({ body, headers: {} })),
      ...oddBodies(secretsOf(user)).map((body) => ({ body, headers: bearer(user) })),
      ...oddHeaders(user).map((headers) => ({
        body: JSON.stringify({ ...secretsOf(user), sync: true }),
        headers,
      })),
    ];

    // act
    const replies = await Promise.all(sends.map(({ body, headers }) => raw(method, path, body, headers)));
    const health = await request('GET', '/health');
    // An odd body may have started a `sync: false` operation that holds the connection for a moment.
    const stillServing = await eventually(async () => {
      const reply = await user.call('/v1/metadata/accounts/get', { sync: true });
      return reply.status === 409 ? undefined : reply;
    });

    // assess
    assessReplies(`${method} ${path}`, sends, replies);
    expect(health.status).toBe(200);
    expect(stillServing.status).toBe(200);
    expect(stillServing.body).toMatchObject({ success: true, status: 'done' });
  });
});
