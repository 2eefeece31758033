/**
 * Webhook delivery: signed with each live secret while a rotation overlaps (the
 * current one and the previous one, space-separated in `webhook-signature`, as Standard Webhooks
 * allows), so that a receiver holding either verifies; the secrets read from the values or, in AWS,
 * from the secret's current and previous versions; and each answer's body consumed, whatever its
 * status, so that no connection is left waiting on it. Through a fetch that answers as a receiver
 * would, and a stand-in of Secrets Manager.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { WebhookSender } from '#shared/adapters/webhook-sender';
import { type ReadSecretVersion, webhookSigningSecrets } from '#shared/adapters/webhook-signing-secrets';
import type { DepositEvent } from '#shared/deposits/model/events';

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
const event = {
  id: 'dep_1.v3',
  type: 'deposit.done',
  depositId: 'dep_1',
  occurredAt: '2026-11-25T10:00:00.000Z',
  data: { reference: 'REF-1' },
} as DepositEvent;

interface Sent {
  headers: Record<string, string>;
  body: string;
}

/** A fetch that records each request and answers `status` with a body it watches being consumed. */
function receiver(status: number, bodyBytes = 100_000) {
  const sent: Sent[] = [];
  const bodies: { pulled: number; cancelled: boolean; ended: boolean }[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    sent.push({ headers: init?.headers as Record<string, string>, body: String(init?.body) });
    const watched = { pulled: 0, cancelled: false, ended: false };
    bodies.push(watched);
    const chunk = new Uint8Array(8 * 1024).fill(0x61);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (watched.pulled >= bodyBytes) {
          watched.ended = true;
          return controller.close();
        }
        watched.pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
      cancel() {
        watched.cancelled = true;
      },
    });
    const headers = status >= 300 && status < 400 ? { location: 'https://elsewhere.test/' } : undefined;
    return new Response(status === 204 ? null : body, { status, headers });
  };
  return { fetch: fetch as typeof globalThis.fetch, sent, bodies };
}

/** Whether a receiver holding `key` verifies what was sent. */
function verifies(key: string, { headers, body }: Sent): boolean {
  try {
    new Webhook(key).verify(body, headers);
    return true;
  } catch {
    return false;
  }
}

describe('a webhook delivery while the signing secret rotates', () => {
  it('carries one signature per live secret, so a receiver holding either verifies it', async () => {
    // prepare
    const [current, previous, other] = [secret(), secret(), secret()];
    const answer = receiver(204);
    const sender = new WebhookSender('https://hooks.test/in', [current, previous], 2_000, {
      fetch: answer.fetch,
    });

    // act
    await sender.deliver(event);

    // assess
    const [sent] = answer.sent;
    if (!sent) throw new Error('nothing sent');
    expect(sent.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verifies(current, sent)).toBe(true);
    expect(verifies(previous, sent)).toBe(true);
    expect(verifies(other, sent)).toBe(false);
  });

  it('carries one signature when one secret is live', async () => {
    const current = secret();
    const answer = receiver(204);
    const sender = new WebhookSender('https://hooks.test/in', [current], 2_000, { fetch: answer.fetch });

    await sender.deliver(event);

    const [sent] = answer.sent;
    expect(sent?.headers['webhook-signature']).toMatch(/^v1,\S+$/);
    expect(sent && verifies(current, sent)).toBe(true);
  });

  it('refuses to start without a secret', () => {
    expect(() => new WebhookSender('https://hooks.test/in', [], 2_000)).toThrow('no signing secret');
  });
});

describe("a webhook answer's body", () => {
  it.for([
    [200, 'delivered'],
    [500, 'refused'],
    [307, 'a redirect'],
  ] as const)(
    'is consumed when the receiver answers %i (%s), and never read past 64 KiB',
    async ([status]) => {
      // prepare: a short body, and a long one
      const short = receiver(status, 16 * 1024);
      const long = receiver(status, 1024 * 1024);
      const send = (fetch: typeof globalThis.fetch) =>
        new WebhookSender('https://hooks.test/in', [secret()], 2_000, { fetch }).deliver(event).then(
          () => 'ok',
          () => 'failed',
        );

      // act
      const outcomes = [await send(short.fetch), await send(long.fetch)];

      // assess: the short one read to its end, the long one cancelled after 64 KiB or so
      expect(outcomes).toEqual(status === 200 ? ['ok', 'ok'] : ['failed', 'failed']);
      expect(short.bodies).toEqual([{ pulled: 16 * 1024, cancelled: false, ended: true }]);
      expect(long.bodies[0]?.cancelled).toBe(true);
      expect(long.bodies[0]?.pulled).toBeLessThanOrEqual(64 * 1024 + 2 * 8 * 1024);
    },
  );
});

describe('the signing secrets', () => {
  /** Secrets Manager's versions of one secret, by stage: what the notifier may read. */
  function versions(stages: Partial<Record<'AWSCURRENT' | 'AWSPREVIOUS', string>>) {
    const asked: string[] = [];
    const read: ReadSecretVersion = async (arn, stage) => {
      asked.push(`${arn} ${stage}`);
      return stages[stage];
    };
    return { read, asked };
  }
  const url = 'https://hooks.test/in';
  const arn = 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:webhook-AbCdEf';

  it('are the values when given: the current one, then the previous one while it is set', async () => {
    const none = versions({});

    expect(await webhookSigningSecrets({ WEBHOOK_URL: url, WEBHOOK_SECRET: 'a' }, none.read)).toEqual(['a']);
    expect(
      await webhookSigningSecrets(
        { WEBHOOK_URL: url, WEBHOOK_SECRET: 'a', WEBHOOK_PREVIOUS_SECRET: 'b' },
        none.read,
      ),
    ).toEqual(['a', 'b']);
    expect(
      await webhookSigningSecrets(
        { WEBHOOK_URL: url, WEBHOOK_SECRET: 'a', WEBHOOK_PREVIOUS_SECRET: 'a' },
        none.read,
      ),
    ).toEqual(['a']);
    expect(none.asked).toEqual([]);
  });

  it("in AWS are the secret's current version, then its previous one while it has one", async () => {
    const rotating = versions({ AWSCURRENT: 'new', AWSPREVIOUS: 'old' });
    const settled = versions({ AWSCURRENT: 'only' });

    expect(await webhookSigningSecrets({ WEBHOOK_URL: url, WEBHOOK_SECRET_ARN: arn }, rotating.read)).toEqual(
      ['new', 'old'],
    );
    expect(await webhookSigningSecrets({ WEBHOOK_URL: url, WEBHOOK_SECRET_ARN: arn }, settled.read)).toEqual([
      'only',
    ]);
    expect(rotating.asked).toEqual([`${arn} AWSCURRENT`, `${arn} AWSPREVIOUS`]);
  });

  it('are none without a webhook, and a secret without a value stops the notifier at start', async () => {
    const empty = versions({ AWSCURRENT: '' });

    expect(await webhookSigningSecrets({ WEBHOOK_SECRET_ARN: arn }, empty.read)).toEqual([]);
    await expect(
      webhookSigningSecrets({ WEBHOOK_URL: url, WEBHOOK_SECRET_ARN: arn }, empty.read),
    ).rejects.toThrow('WEBHOOK_SECRET_ARN: the secret has no value');
  });
});
