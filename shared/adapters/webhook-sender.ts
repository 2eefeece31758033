/**
 * Webhook delivery, signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`): receivers verify with any Standard Webhooks library and de-duplicate on the
 * id. A delivery that does not get a 2xx throws, and the notifier retries it with backoff
 * (`shared/deposits/webhooks.ts`); a redirect is not followed (it is not a 2xx either).
 */
import { Webhook } from 'standardwebhooks';
import type { DepositEvent } from '#shared/deposits/model';

export class WebhookSender {
  private readonly signer: Webhook;

  constructor(
    private readonly url: string,
    secret: string,
    private readonly timeoutMs: number,
  ) {
    this.signer = new Webhook(secret);
  }

  async deliver(event: DepositEvent, now = new Date()): Promise<void> {
    const payload = JSON.stringify({
      type: event.type,
      timestamp: event.occurredAt,
      // A source's events name it as one: `sourceId`.
      data: { [event.type.startsWith('source.') ? 'sourceId' : 'depositId']: event.depositId, ...event.data },
    });
    const signature = this.signer.sign(event.id, now, payload);
    const response = await fetch(this.url, {
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
    if (response.status >= 300 && response.status < 400) {
      throw new Error(
        `webhook answered ${response.status}: a redirect, not followed (set WEBHOOK_URL to its target)`,
      );
    }
    if (!response.ok) throw new Error(`webhook answered ${response.status}`);
  }
}
