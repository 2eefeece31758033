/**
 * The webhook verifier of the typed client, for a wallet backend's receiver: a delivery of the
 * deposits API is believed only once its Standard Webhooks signature verifies (`webhook-id`,
 * `webhook-timestamp` within five minutes of now, `webhook-signature`, under the endpoint's
 * `whsec_...` secret, as the notifier signs: `shared/adapters/webhook-sender.ts`), and then its body
 * is checked against the events' schemas (`#shared/contracts/deposit-events`). The answer is the
 * event as it came, typed: a union on `type`, whose `data` carries the deposit's amount, currency,
 * sender, your `clientReference` and `metadata` and its times.
 *
 * Verify the body exactly as received (the raw text, before any JSON parsing), and de-duplicate on
 * `webhook-id`: the same event may come more than once. While you rotate the secret, give both: a
 * delivery verifies with either.
 */
import { Webhook } from 'standardwebhooks';
import { WebhookEvent } from '#shared/contracts/deposit-events';

export type { WebhookEvent } from '#shared/contracts/deposit-events';

/** The event of one type: `WebhookEventOf<'deposit.done'>` has `data.reference`. */
export type WebhookEventOf<T extends WebhookEvent['type']> = Extract<WebhookEvent, { type: T }>;

/** The request's headers as a server has them: Node's `request.headers`, a Fetch `Headers`, or a plain map. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** A delivery not to be believed: its signature does not verify, or its body is not an event. */
export class WebhookNotVerified extends Error {
  constructor(
    /** `signature`: answer 401 (the service sends it again later); `schema`: signed, but no event this client knows. */
    readonly reason: 'signature' | 'schema',
    detail: string,
  ) {
    super(`webhook not verified (${reason}): ${detail}`);
    this.name = 'WebhookNotVerified';
  }
}

const signedHeaders = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

export class DepositsWebhook {
  private readonly verifiers: Webhook[];

  /** The endpoint's secret (`whsec_...`); while it rotates, the new one and the old one. */
  constructor(secret: string | readonly string[]) {
    const secrets = typeof secret === 'string' ? [secret] : secret;
    if (secrets.length === 0) throw new TypeError('a webhook verifier needs the signing secret');
    this.verifiers = secrets.map((each) => new Webhook(each));
  }

  /** The event of a delivery whose signature verifies; else throws `WebhookNotVerified`. */
  verify(body: string | Uint8Array, headers: WebhookHeaders): WebhookEvent {
    const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
    const signed = Object.fromEntries(signedHeaders.map((name) => [name, headerOf(headers, name)]));
    let event: unknown;
    let refusal = '';
    for (const verifier of this.verifiers) {
      try {
        event = verifier.verify(text, signed);
        break;
      } catch (error) {
        refusal = (error as Error).message;
      }
    }
    if (event === undefined) throw new WebhookNotVerified('signature', refusal);
    const checked = WebhookEvent.safeParse(event);
    if (!checked.success) {
      const problems = checked.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
      throw new WebhookNotVerified('schema', problems.join('; '));
    }
    // The event as it came (checked, not rewritten), so fields a newer service adds are not lost.
    return event as WebhookEvent;
  }
}

function headerOf(headers: WebhookHeaders, name: string): string {
  if (headers instanceof Headers) return headers.get(name) ?? '';
  const value = headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  // Repeated, a header's values are one list (a signature per secret, space-separated).
  return typeof value === 'string' ? value : (value?.join(' ') ?? '');
}
