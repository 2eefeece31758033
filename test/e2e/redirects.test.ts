/**
 * Redirects are never followed where secrets travel: a webhook delivery (the signed event), the
 * typed client's calls (the connection's token and secrets) and the provider client's (the same). Real HTTP on this machine: a server
 * that redirects (307, which would resend the body) to another that counts what reaches it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookSender } from '#shared/adapters/webhook-sender';
import type { DepositEvent } from '#shared/deposits/model/events';
import { DepositsClient, DepositsUnavailable } from '#shared/deposits-api/client';
import { ProviderClient, ProviderUnknownOutcome } from '#shared/provider/client';

let target: Server;
let redirector: Server;
let reached: { url: string; body: string }[] = [];
let redirectorUrl = '';

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

beforeAll(async () => {
  target = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      reached.push({ url: request.url ?? '', body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const targetUrl = await listen(target);
  redirector = createServer((request, response) => {
    request.resume();
    response.writeHead(307, { location: `${targetUrl}${request.url}` }).end();
  });
  redirectorUrl = await listen(redirector);
});

afterAll(() => {
  target.close();
  redirector.close();
});

const event: DepositEvent = {
  id: 'evt_1',
  depositId: 'dep_1',
  type: 'deposit.done',
  occurredAt: '2026-11-25T10:00:00.000Z',
  data: { reference: 'REF-1' },
} as DepositEvent;

describe('redirects', () => {
  it('a webhook delivery answered with a redirect fails, and the signed event goes nowhere else', async () => {
    reached = [];
    const sender = new WebhookSender(
      `${redirectorUrl}/hooks`,
      [`whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`],
      2_000,
    );

    await expect(sender.deliver(event)).rejects.toThrow(/answered 307: a redirect, not followed/);
    expect(reached).toEqual([]);
  });

  it("the typed client's call answered with a redirect fails, and the secrets go nowhere else", async () => {
    reached = [];
    const client = new DepositsClient({ baseUrl: redirectorUrl, retries: 0 });
    const connection = { accessToken: 'tok', appSecret: 'app-secret', userSecret: 'user-secret' };

    const error = await client.get(connection, 'dep_1').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(DepositsUnavailable);
    expect(String(error)).toMatch(/answered 307, a redirect \(not followed\)/);
    expect(reached).toEqual([]);
  });

  it("the provider client's call answered with a redirect is an unknown outcome, and the secrets go nowhere else", async () => {
    reached = [];
    const client = new ProviderClient({ baseUrl: redirectorUrl, timeoutMs: 2_000 });
    const credentials = { accessToken: 'tok', appSecret: 'app-secret', userSecret: 'user-secret' };

    const error = await client.getMetadata(credentials).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ProviderUnknownOutcome);
    expect(String((error as Error).message)).toMatch(/answered 307: a redirect, not followed/);
    expect(reached).toEqual([]);
  });
});
