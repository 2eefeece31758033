/**
 * The local stack's guards over real HTTP: each gateway (sandbox, deposits, operator and its
 * console) answers only requests whose Host names the address it listens on, so a web page whose
 * name rebinds to 127.0.0.1 reaches nothing; and the local controls (`/_local/...`, on the deposits
 * gateway and the local scheduler) take only JSON bodies, refusing another content type (415) and
 * JSON that does not parse (400) in the envelope, before any control runs.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, inject, it } from 'vitest';

const sandboxUrl = inject('sandboxUrl');
const depositsUrl = inject('depositsUrl');
const operatorUrl = inject('operatorUrl');
const operatorToken = inject('operatorToken');
const schedulerEndpoint = inject('schedulerEndpoint');

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, whose fields the tests read one by one
  json(): Record<string, any>;
}

/**
 * A request with exactly these headers (fetch would not send another Host, nor none): `host: null`
 * sends no Host header at all.
 */
function send(
  url: string,
  options: { method?: string; host?: string | null; headers?: Record<string, string>; body?: string } = {},
): Promise<Raw> {
  const target = new URL(url);
  const headers: Record<string, string> = { ...options.headers };
  if (options.host !== undefined && options.host !== null) headers.host = options.host;
  return new Promise((done, failed) => {
    const call = httpRequest(
      {
        hostname: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'GET',
        headers,
        setHost: options.host === undefined,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          done({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text,
            json: () => JSON.parse(text),
          });
        });
      },
    );
    call.on('error', failed);
    call.end(options.body);
  });
}

const portOf = (url: string) => new URL(url).port;
const json = { 'content-type': 'application/json' };
const bearer = { authorization: `Bearer ${operatorToken}` };

/** Every gateway of the stack, with a request that it answers 200 from its own address. */
const gateways = [
  { name: 'sandbox', url: `${sandboxUrl}/openapi.json`, method: 'GET', headers: {} },
  { name: 'deposits', url: `${depositsUrl}/_local/clock`, method: 'GET', headers: {} },
  {
    name: 'operator',
    url: `${operatorUrl}/v1/ops/queues`,
    method: 'POST',
    headers: { ...json, ...bearer },
    body: '{}',
  },
  { name: 'operator console', url: `${operatorUrl}/`, method: 'GET', headers: {} },
];

describe('the Host header (DNS rebinding)', () => {
  it.each(gateways)('the $name gateway answers its own address by each loopback name', async (gateway) => {
    const port = portOf(gateway.url);

    const answers = await Promise.all(
      [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].map(
        async (host) => (await send(gateway.url, { ...gateway, host })).status,
      ),
    );

    expect(answers).toEqual([200, 200, 200]);
  });

  it.each(gateways)(
    'the $name gateway refuses another name, another port and no Host: 421 WRONG_HOST in the envelope',
    async (gateway) => {
      const port = portOf(gateway.url);

      const refusals = await Promise.all(
        [`evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`, null].map(
          (host) => send(gateway.url, { ...gateway, host }),
        ),
      );

      for (const refusal of refusals) {
        expect(refusal.status).toBe(421);
        expect(refusal.headers['content-type']).toBe('application/json');
        expect(refusal.json()).toMatchObject({
          success: false,
          status: 'failed',
          type: 'WRONG_HOST',
          msg: expect.stringContaining('Host'),
          requestId: expect.any(String),
        });
      }
    },
  );

  it('refuses before anything runs: a rebinding page cannot move the clock nor create a sandbox user', async () => {
    const before = (await send(`${depositsUrl}/_local/clock`)).json();
    const host = `evil.example:${portOf(depositsUrl)}`;

    const moved = await send(`${depositsUrl}/_local/clock`, {
      method: 'POST',
      host,
      headers: json,
      body: JSON.stringify({ advanceSeconds: 0 }),
    });
    const user = await send(`${sandboxUrl}/sandbox/users`, {
      method: 'POST',
      host: `evil.example:${portOf(sandboxUrl)}`,
      headers: json,
      body: JSON.stringify({ appSecret: 'sandbox-local-app-secret', bankId: 'SANDBOX_BENEFICIARY' }),
    });
    const after = (await send(`${depositsUrl}/_local/clock`)).json();

    expect(moved.status).toBe(421);
    expect(user.status).toBe(421);
    expect(user.text).not.toContain('connectionID');
    expect(after.aheadSeconds).toBe(before.aheadSeconds);
  });

  it("does not echo a refused Host into the contract's servers", async () => {
    const refused = await send(`${depositsUrl}/openapi.json`, {
      host: `evil.example:${portOf(depositsUrl)}`,
    });

    expect(refused.status).toBe(421);
    expect(refused.text).not.toContain('evil.example');
  });
});

describe('the local controls take JSON only', () => {
  it('another content type with a body is 415 UNSUPPORTED_MEDIA_TYPE, and the control does not run', async () => {
    const before = (await send(`${depositsUrl}/_local/clock`)).json();

    const plain = await send(`${depositsUrl}/_local/clock`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{"advanceSeconds":60}',
    });
    const form = await send(`${depositsUrl}/_local/crash`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'point=before-provider-call&accessToken=x',
    });
    const none = await send(`${depositsUrl}/_local/clock`, { method: 'POST', body: '{"advanceSeconds":60}' });
    const after = (await send(`${depositsUrl}/_local/clock`)).json();

    for (const refusal of [plain, form, none]) {
      expect(refusal.status).toBe(415);
      expect(refusal.json()).toMatchObject({
        success: false,
        status: 'failed',
        type: 'UNSUPPORTED_MEDIA_TYPE',
        msg: expect.stringContaining('application/json'),
      });
    }
    expect(after.aheadSeconds).toBe(before.aheadSeconds);
  });

  it('JSON that does not parse is 400 BAD_REQUEST in the envelope, not a 500', async () => {
    const broken = await send(`${depositsUrl}/_local/clock`, {
      method: 'POST',
      headers: json,
      body: '{"advanceSeconds":',
    });

    expect(broken.status).toBe(400);
    expect(broken.json()).toMatchObject({
      success: false,
      status: 'failed',
      type: 'BAD_REQUEST',
      msg: 'Invalid JSON request',
      details: ['body is not valid JSON'],
    });
  });

  it('takes application/json with a charset, and requests without a body need no content type', async () => {
    const withCharset = await send(`${depositsUrl}/_local/provider-calls`, {
      method: 'POST',
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
      body: JSON.stringify({ accessToken: 'nobody' }),
    });
    const noBody = await send(`${depositsUrl}/_local/crash`);

    expect(withCharset.status).toBe(200);
    expect(withCharset.json()).toEqual({ calls: [] });
    expect(noBody.status).toBe(200);
  });

  it("the local scheduler's controls refuse the same: 415 for another type, 400 for broken JSON", async () => {
    const fire = `${schedulerEndpoint}/_local/schedules/nothing/fire?groupName=none`;

    const plain = await send(fire, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    const broken = await send(fire, { method: 'POST', headers: json, body: '{' });
    const noBody = await send(fire, { method: 'POST' });

    expect(plain.status).toBe(415);
    expect(plain.json()).toMatchObject({ success: false, status: 'failed', type: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(broken.status).toBe(400);
    expect(broken.json()).toMatchObject({ success: false, status: 'failed', type: 'BAD_REQUEST' });
    // No body: the control runs (and finds no such schedule).
    expect(noBody.status).toBe(404);
  });
});
