/**
 * A wallet backend's webhook handler through the installed package (`@bank-data/deposits-client/webhooks`):
 * one delivery as your HTTP server received it, the raw body and the headers, verified with your
 * endpoint's secret (`WEBHOOK_SECRET`, `whsec_...`), then booked from the event alone: the amount,
 * the currency, your `clientReference` and `metadata` ride on it. Here the delivery comes on
 * standard input as `{ "body": "...", "headers": { ... } }`, and what would be booked is printed as
 * one JSON line; one that does not verify exits 1, saying why (a server answers it 401).
 *
 * test/e2e/client-package.test.ts builds this in a scratch project and runs it with plain `node` on
 * a delivery the local stack sent.
 */
import { DepositsWebhook, type WebhookEvent, WebhookNotVerified } from '@bank-data/deposits-client/webhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('WEBHOOK_SECRET is required');
const webhooks = new DepositsWebhook(secret);

let input = '';
for await (const chunk of process.stdin) input += String(chunk);
const delivery = JSON.parse(input) as { body: string; headers: Record<string, string> };

/** What the wallet books, or notes, for each event: each type narrows `data`. */
function booking(event: WebhookEvent) {
  switch (event.type) {
    case 'deposit.done': {
      const { depositId, amount, currency, clientReference, metadata, reference } = event.data;
      return { book: 'top-up', depositId, amount, currency, clientReference, metadata, reference };
    }
    case 'deposit.failed':
      return { book: 'nothing', depositId: event.data.depositId, why: event.data.type };
    case 'deposit.user_input_required':
      return { ask: event.data.userInputs.map((input) => input.query), by: event.data.inputExpiresAt };
    default:
      return { note: event.type };
  }
}

try {
  const event = webhooks.verify(delivery.body, delivery.headers);
  console.log(JSON.stringify({ type: event.type, data: event.data, booking: booking(event) }));
} catch (error) {
  if (!(error instanceof WebhookNotVerified)) throw error;
  console.log(JSON.stringify({ refused: error.reason, message: error.message }));
  process.exitCode = 1;
}
