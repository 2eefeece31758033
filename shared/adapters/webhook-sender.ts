/**
 * Webhook delivery, signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`): receivers verify with any Standard Webhooks library and de-duplicate on the
 * id. While the signing secret rotates, each delivery is signed with every live secret (the current
 * one first), space-separated in `webhook-signature` as the standard allows, so that a receiver
 * holding either secret verifies it (`webhook-signing-secrets.ts`). A delivery that does not get a
 * 2xx throws, and the notifier retries it with backoff (`shared/deposits/background/webhooks.ts`); a redirect is
 * not followed (it is not a 2xx either). Every answer's body is consumed (read up to 64 KiB and
 * dropped, the rest cancelled), so that no connection is left waiting on it.
 */
import { Webhook } from 'standardwebhooks';
import type { DepositEvent } from '#shared/deposits/model/events';
import { discardBody } from '#shared/http-body';

export class WebhookSender {
  private readonly signers: Webhook[];
  private readonly fetch: typeof fetch;

  constructor(
    private readonly url: string,
    /** The live signing secrets, the current one first. */
    secrets: readonly string[],
    private readonly timeoutMs: number,
    options: { fetch?: typeof fetch } = {},
  ) {
    if (secrets.length === 0)
      throw new Error('a webhook sender needs a signing secret: no signing secret given');
    this.signers = secrets.map((secret) => new Webhook(secret));
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** Sends the event; its answer's status when 2xx, else throws (`WebhookRefusal` when it answered). */
  async deliver(event: DepositEvent, now = new Date()): Promise<{ status: number }> {
    const payload = JSON.stringify({
      type: event.type,
      timestamp: event.occurredAt,
      // A source's events name it as one: `sourceId`.
      data: { [event.type.startsWith('source.') ? 'sourceId' : 'depositId']: event.depositId, ...event.data },
    });
    const signature = this.signers.map((signer) => signer.sign(event.id, now, payload)).join(' ');
    const response = await this.fetch(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': event.id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body: payload,
      signal: AbortSignal.timeout(this.timeoutMs),
      // A redirect would resend the signed event to another origin: never followed, a failed delivery.
      redirect: 'manual',
    });
    await discardBody(response);
    if (response.status >= 300 && response.status < 400) {
      throw new WebhookRefusal(
        response.status,
        `webhook answered ${response.status}: a redirect, not followed (set WEBHOOK_URL to its target)`,
      );
    }
    if (!response.ok) throw new WebhookRefusal(response.status, `webhook answered ${response.status}`);
    return { status: response.status };
  }
}

/** The webhook answered, but not 2xx: its status, for the delivery's record. */
export class WebhookRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookRefusal';
  }
}
