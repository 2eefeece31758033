// One deposit's webhook deliveries: each event, its tries and where it stands, with a resend. A
// resend queues the same event again (the same webhook-id, which the receiver de-duplicates on).
// Built once per deposit opened, re-rendered on each refresh; what each resend came to stays.
import { OpsError, operatorApi } from './api.js';
import { countdown, h, instant } from './dom.js';

const version = (eventId) => /\.(v\d+)$/.exec(eventId)?.[1] ?? eventId;

function lastTry(delivery) {
  const last = delivery.tries?.at(-1);
  if (!last) return instant(delivery.lastTriedAt);
  const answer = last.outcome === 'delivered' ? `HTTP ${last.status}` : (last.error ?? `HTTP ${last.status}`);
  return `${instant(last.at)}: ${answer} (${last.tookMs} ms)`;
}

function tries(delivery) {
  return h(
    'details',
    {},
    h('summary', {}, `${delivery.attempts} ${delivery.attempts === 1 ? 'try' : 'tries'}`),
    h(
      'ol',
      { class: 'tries' },
      (delivery.tries ?? []).map((attempt) =>
        h(
          'li',
          { class: attempt.outcome },
          `${instant(attempt.at)} ${attempt.outcome}`,
          attempt.status ? ` HTTP ${attempt.status}` : '',
          attempt.outcome === 'failed' && attempt.error ? `: ${attempt.error}` : '',
        ),
      ),
    ),
  );
}

/**
 * @param {string} operationID
 * @param {{ onDone: () => void }} hooks
 */
export function deliveriesFor(operationID, hooks) {
  /** @type {Map<string, unknown[]>} */
  const results = new Map();

  async function resend(button, eventId) {
    button.disabled = true;
    results.set(eventId, ['Resending...']);
    try {
      const answer = await operatorApi.resend(operationID, eventId);
      results.set(eventId, [`Resent (${answer.resends} in all)`]);
    } catch (error) {
      const why =
        error instanceof OpsError
          ? [h('b', { testid: 'resend-error-type' }, error.type), ` ${error.msg}`]
          : String(error);
      results.set(eventId, ['Resend refused: ', why]);
    } finally {
      hooks.onDone();
    }
  }

  /** The deliveries as the operator API answered them. */
  function render(answer) {
    const deliveries = answer?.deliveries ?? [];
    if (deliveries.length === 0)
      return h(
        'p',
        { class: 'muted', testid: 'deliveries-empty' },
        'No delivery yet: no webhook is configured, or none of its events was sent yet.',
      );
    return h(
      'table',
      { class: 'deliveries', testid: 'deliveries' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Event', 'Type', 'State', 'Tries', 'Last try', 'Delivered', 'Next try', 'Resends', ''].map(
            (title) => h('th', {}, title),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        deliveries.map((delivery) => {
          const button = h('button', { type: 'button', testid: 'resend' }, 'Resend');
          button.addEventListener('click', () => void resend(button, delivery.eventId));
          return h(
            'tr',
            { testid: 'delivery-row', dataset: { eventId: delivery.eventId, state: delivery.state } },
            h('td', { title: delivery.eventId }, version(delivery.eventId)),
            h('td', { testid: 'delivery-type' }, delivery.type),
            h(
              'td',
              {},
              h(
                'span',
                { class: `badge delivery-${delivery.state}`, testid: 'delivery-state' },
                delivery.state,
              ),
            ),
            h('td', { testid: 'delivery-attempts' }, tries(delivery)),
            h('td', {}, lastTry(delivery)),
            h('td', {}, instant(delivery.deliveredAt)),
            h('td', {}, delivery.nextTryAt ? countdown(delivery.nextTryAt, 'delivery-next-try') : ''),
            h(
              'td',
              { testid: 'delivery-resends' },
              delivery.resends,
              delivery.lastResend
                ? h(
                    'span',
                    { class: 'muted' },
                    ` last by ${delivery.lastResend.by} ${instant(delivery.lastResend.at)}`,
                  )
                : '',
            ),
            h(
              'td',
              {},
              button,
              h(
                'span',
                { class: 'resend-result', testid: 'resend-result', role: 'status' },
                results.get(delivery.eventId) ?? '',
              ),
            ),
          );
        }),
      ),
    );
  }

  return { render };
}
