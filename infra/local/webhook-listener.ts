/**
 * A webhook receiver for a developer at `npm start` (`npm run listen`, `listen.ts`): it verifies each
 * delivery the Standard Webhooks way (the `standardwebhooks` library, as a wallet backend would) and
 * says each event readably as it arrives. A verified delivery answers 204; one whose signature does
 * not verify, 401 (the notifier tries it again later, as it would at a real receiver), and it says
 * why. The same event delivered again (its `webhook-id` seen before) is marked as such: a receiver
 * de-duplicates on that id.
 *
 * Locally both ends share a secret: WEBHOOK_SECRET when set, else `localWebhook.secret`, which
 * `npm start` signs with when WEBHOOK_URL is set without a secret.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** Where `npm run listen` listens by default, and the secret both ends take when none is set. */
export const localWebhook = {
  port: 3003,
  /** A test credential, like the sandbox's app secret: the local stack is for one developer machine. */
  secret: `whsec_${Buffer.from('npm run listen: local webhooks').toString('base64')}`,
};

export interface WebhookListener {
  url: string;
  stop(): Promise<void>;
}

/** Starts the receiver; `say` gets what it prints, an event's lines at once. */
export async function startWebhookListener(options: {
  host: string;
  port: number;
  secret: string;
  say: (line: string) => void;
}): Promise<WebhookListener> {
  const verifier = new Webhook(options.secret);
  const seen = new Set<string>();
  const server = createServer((request, response) => {
    void readBody(request).then((body) => {
      if (request.method !== 'POST') {
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('npm run listen: POST deposit events here (Standard Webhooks)\n');
        return;
      }
      const headers = {
        'webhook-id': String(request.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
      };
      let event: unknown;
      try {
        event = verifier.verify(body, headers);
      } catch (error) {
        options.say(
          `${clock()} REFUSED ${headers['webhook-id'] || '(no webhook-id)'}: ${(error as Error).message}. Is WEBHOOK_SECRET the same for npm start and npm run listen?`,
        );
        response.writeHead(401, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('signature not verified\n');
        return;
      }
      const again = seen.has(headers['webhook-id']);
      seen.add(headers['webhook-id']);
      options.say(linesOf(event, headers['webhook-id'], again).join('\n'));
      response.writeHead(204);
      response.end();
    });
  });
  await new Promise<void>((ready, failed) => {
    server.once('error', failed);
    server.listen(options.port, options.host, ready);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    stop: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const clock = () => new Date().toISOString().slice(11, 19);

/**
 * An event as a person reads it: its type, whose it is and that it was verified, then its data's
 * fields, `key value`, whatever the event carries (nested values as JSON).
 */
export function linesOf(event: unknown, webhookId: string, again = false): string[] {
  const {
    type,
    timestamp,
    data = {},
  } = (event ?? {}) as {
    type?: string;
    timestamp?: string;
    data?: Record<string, unknown>;
  };
  const { depositId, sourceId, status, step, ...rest } = data;
  // Where it stands first, then whatever else the event carries.
  const fields = { status, step, ...rest };
  const whose = String(depositId ?? sourceId ?? '');
  const header = [
    clock(),
    String(type ?? '(no type)'),
    whose,
    again ? 'verified, delivered again (same webhook-id: drop it)' : 'verified',
    `webhook-id ${webhookId}`,
    ...(timestamp ? [`at ${timestamp}`] : []),
  ];
  const body = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [header.join('  '), ...(body.length ? [`    ${body.join('  ')}`] : [])];
}
