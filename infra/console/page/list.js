// The page's tables' rows. The deposits list: one row per deposit with every column of the
// operator's view, a payment source labelled as one (it moves no money: no amount), its next wait and
// the sweeper's next look as live countdowns on the service's clock. The queues: a DLQ that holds
// anything stands out.
import { serviceNow } from './clock.js';
import { countdown, h, instant } from './dom.js';

/** The waits a row may show, the soonest ahead first. */
const waits = [
  ['resumesAt', 'cool-down over'],
  ['coolDownUntil', "beneficiary's cool-down"],
  ['sleepsUntil', 'sleeps'],
  ['inputExpiresAt', 'input expires'],
  ['pollAt', 'reads the transfer'],
];

export const columns = [
  'Created (UTC)',
  'Deposit',
  'Kind',
  'Status',
  'Step',
  'Amount',
  'Wallet account',
  'Sender',
  'Client reference',
  'Bank',
  'Connection',
  'Retries',
  'Next wait',
  'Sweeper looks',
  'Failure',
  'Reference',
  'Updated (UTC)',
];

/** A time in a row: month, day and time of day in UTC (the whole instant in its title). */
function when(iso) {
  if (!iso) return h('td', {});
  return h(
    'td',
    { class: 'when', title: instant(iso) },
    new Date(iso).toISOString().slice(5, 19).replace('T', ' '),
  );
}

export const isSource = (deposit) => deposit.purpose === 'source';

/** What a deposit moves: its amount; a payment source moves none, and says so. */
export function amountOf(deposit) {
  return isSource(deposit) ? 'payment source (no amount)' : `${deposit.amount} ${deposit.currency}`;
}

function nextWait(deposit) {
  const now = serviceNow();
  const ahead = waits
    .filter(([key]) => deposit[key] && Date.parse(deposit[key]) > now)
    .sort(([a], [b]) => Date.parse(deposit[a]) - Date.parse(deposit[b]));
  const [key, label] = ahead[0] ?? [];
  if (!key) return '';
  return [h('span', { class: 'label' }, `${label} `), countdown(deposit[key], `row-wait-${key}`)];
}

/**
 * @param {Record<string, any>} deposit
 * @param {{ open: boolean, onOpen: () => void }} options
 */
export function listRow(deposit, { open, onOpen }) {
  const source = isSource(deposit);
  return h(
    'tr',
    {
      testid: 'deposit-row',
      dataset: { operationId: deposit.operationID, kind: source ? 'source' : 'deposit' },
      class: open ? 'open' : '',
      onclick: onOpen,
    },
    when(deposit.createdAt),
    h(
      'td',
      { class: 'id' },
      h('a', { href: '#', onclick: (event) => event.preventDefault() }, deposit.operationID),
    ),
    h(
      'td',
      { testid: 'row-kind', class: 'tight' },
      h('span', { class: `badge kind-${source ? 'source' : 'deposit'}` }, source ? 'source' : 'deposit'),
    ),
    h('td', { class: 'tight' }, h('span', { class: `status-${deposit.status}` }, deposit.status)),
    h('td', { testid: 'row-step', class: 'tight' }, deposit.step),
    h('td', { class: source ? 'amount muted' : 'amount', testid: 'row-amount' }, amountOf(deposit)),
    h('td', {}, deposit.walletAccountID ?? ''),
    h('td', { class: 'id' }, deposit.senderID ?? ''),
    h('td', { class: 'id' }, deposit.clientReference ?? ''),
    h('td', {}, deposit.bankName ?? ''),
    h('td', { class: 'id' }, deposit.connection ?? ''),
    h('td', { class: deposit.retries > 0 ? 'nonzero' : '' }, deposit.retries ?? ''),
    h('td', {}, nextWait(deposit)),
    h('td', {}, deposit.checkAt ? countdown(deposit.checkAt, 'row-check') : ''),
    h('td', { class: 'id', title: deposit.msg ?? '' }, deposit.type ?? ''),
    h('td', { class: 'id' }, deposit.reference ?? ''),
    when(deposit.updatedAt),
  );
}

/** A queue, its depths and its DLQ's. */
export function queueRow(queue) {
  return h(
    'tr',
    { testid: `queue-${queue.name}`, class: queue.dlq?.visible > 0 ? 'dlq-alert' : '' },
    h('td', {}, queue.name),
    h('td', { testid: 'queue-visible' }, queue.visible),
    h('td', {}, queue.inFlight),
    h('td', {}, queue.delayed),
    h('td', {}, queue.dlq?.name ?? ''),
    h('td', { testid: 'dlq-depth', class: 'dlq-depth' }, queue.dlq?.visible ?? ''),
  );
}
