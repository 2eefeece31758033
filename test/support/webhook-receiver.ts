/**
 * A webhook receiver for tests: verifies each delivery with the Standard Webhooks library (as a
 * customer would), keeps what it received, and can be told to answer 500 for a while so tests see
 * retries. It holds two secrets, as a receiver does while the sender's secret rotates: `secret`, and
 * `previousSecret` (which the stacks that sign with both are given as WEBHOOK_PREVIOUS_SECRET);
 * `verified` says the delivery verifies with the first, `verifiedWith` with which of them, each on
 * its own, and `signatures` how many `webhook-signature` carried. Tests read it over HTTP: `GET
 * /deliveries?depositId=...`, and `POST /fail { count }` (the next `count` deliveries of any deposit)
 * or `POST /fail { count, depositId }` (of that deposit only). `GET /signed?id=<webhook-id>` gives a
 * delivery as it came (its raw body and signed headers), for a receiver of the test's own to verify.
 *
 * A receiver `shared` by test files running side by side refuses `POST /fail { count }` (400): the
 * refusals would go to whichever file's deliveries came next, and that file's count of tries would
 * be wrong.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

export interface Delivery {
  id: string;
  type: string;
  depositId: string;
  data: Record<string, unknown>;
  verified: boolean;
  /** Always set by the receiver; a stand-in delivery (the chaos audit's) may leave them out. */
  verifiedWith?: { current: boolean; previous: boolean };
  signatures?: number;
  receivedAt: string;
}

export async function startWebhookReceiver(options: { shared?: boolean } = {}) {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const previousSecret = `whsec_${randomBytes(24).toString('base64')}`;
  const verifier = new Webhook(secret);
  const previousVerifier = new Webhook(previousSecret);
  const deliveries: Delivery[] = [];
  /** Each delivery as it came, by its webhook-id (the last one of an id). */
  const signedById = new Map<string, { body: string; headers: Record<string, string> }>();
  let failuresToServe = 0;
  const failuresFor = new Map<string, number>();
  const refusedFor = new Map<string, number>();
  let refused = 0;

  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://local');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const send = (status: number, answer: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    };
    if (request.method === 'GET' && url.pathname === '/deliveries') {
      const depositId = url.searchParams.get('depositId');
      return send(200, {
        deliveries: deliveries.filter((d) => !depositId || d.depositId === depositId),
        refused,
        ...(depositId ? { refusedForDeposit: refusedFor.get(depositId) ?? 0 } : {}),
      });
    }
    if (request.method === 'GET' && url.pathname === '/signed') {
      const signed = signedById.get(url.searchParams.get('id') ?? '');
      return signed ? send(200, signed) : send(404, { error: 'no delivery with this webhook-id' });
    }
    if (request.method === 'POST' && url.pathname === '/fail') {
      const { count = 0, depositId } = JSON.parse(body || '{}') as { count?: number; depositId?: string };
      if (depositId) failuresFor.set(depositId, count);
      else if (options.shared) return send(400, { error: 'a shared receiver refuses one deposit at a time' });
      else failuresToServe = count;
      return send(200, { failing: count, ...(depositId ? { depositId } : {}) });
    }
    const target = depositOf(body);
    const forDeposit = failuresFor.get(target) ?? 0;
    if (forDeposit > 0 || failuresToServe > 0) {
      if (forDeposit > 0) failuresFor.set(target, forDeposit - 1);
      else failuresToServe -= 1;
      refused += 1;
      refusedFor.set(target, (refusedFor.get(target) ?? 0) + 1);
      return send(500, { error: 'told to fail' });
    }
    const signed = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    const verifies = (by: Webhook) => {
      try {
        by.verify(body, signed);
        return true;
      } catch {
        return false;
      }
    };
    signedById.set(signed['webhook-id'], { body, headers: signed });
    const verifiedWith = { current: verifies(verifier), previous: verifies(previousVerifier) };
    const verified = verifiedWith.current;
    const payload = JSON.parse(body) as {
      type: string;
      data: { depositId: string } & Record<string, unknown>;
    };
    deliveries.push({
      id: String(request.headers['webhook-id']),
      type: payload.type,
      // A source's events name it `sourceId`: kept under the same key, so tests find either by its id.
      depositId: payload.data.depositId ?? String(payload.data.sourceId ?? ''),
      data: payload.data,
      verified,
      verifiedWith,
      signatures: signed['webhook-signature'].split(' ').filter(Boolean).length,
      receivedAt: new Date().toISOString(),
    });
    return send(204, {});
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    secret,
    previousSecret,
    stop: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

function depositOf(body: string): string {
  try {
    const data = (JSON.parse(body) as { data?: { depositId?: string; sourceId?: string } }).data;
    return String(data?.depositId ?? data?.sourceId ?? '');
  } catch {
    return '';
  }
}
