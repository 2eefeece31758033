// One deposit as the operator sees it: where it stands, what it waits for (live countdowns), its
// counters, the transfer, and its whole history as a timeline. Re-rendered on every refresh.
import { countdown, duration, h, instant } from './dom.js';
import { amountOf, isSource } from './list.js';

/** A failed deposit whose transfer's outcome nobody knows, not yet resolved by an operator. */
export function isOutcomeUnknown(deposit) {
  return deposit.status === 'failed' && deposit.type === 'TRANSFER_OUTCOME_UNKNOWN' && !deposit.resolution;
}

/** The status bucket the operator API lists the deposit under. */
export function bucketOf(deposit) {
  return deposit.status === 'failed' && deposit.type === 'TRANSFER_OUTCOME_UNKNOWN' && !deposit.resolution
    ? 'outcome_unknown'
    : deposit.status;
}

const waits = [
  ['resumesAt', 'Resumes (cool-down over)'],
  ['coolDownUntil', "Beneficiary's cool-down until"],
  ['sleepsUntil', 'Sleeps until'],
  ['inputExpiresAt', 'Input expires'],
  ['pollAt', "Asks the provider for the transfer's outcome"],
  ['checkAt', 'Sweeper looks again'],
];

const counters = [
  ['retries', 'Retries'],
  ['busyWaits', 'Busy waits'],
  ['reasks', 'Questions asked again'],
  ['redrives', 'Re-drives'],
  ['coolDownRefusals', 'Cool-down refusals'],
  ['claimWaits', 'Claim waits'],
  ['polls', 'Reconcile polls'],
];

/** A definition list of label/value pairs, leaving out pairs without a value. */
function facts(testid, pairs) {
  const shown = pairs.filter(([, value]) => value !== undefined && value !== null && value !== '');
  if (shown.length === 0) return null;
  return h(
    'dl',
    { class: 'facts', testid },
    shown.map(([label, value, key]) => [
      h('dt', {}, label),
      h('dd', key ? { testid: `${testid}-${key}` } : {}, value),
    ]),
  );
}

function section(title, testid, ...content) {
  const body = content.flat().filter(Boolean);
  if (body.length === 0) return null;
  return h('section', { class: 'panel', testid }, h('h3', {}, title), body);
}

export function renderDeposit(deposit) {
  const bucket = bucketOf(deposit);
  return [
    h(
      'header',
      { class: 'detail-head' },
      h('h2', { testid: 'detail-id' }, deposit.operationID),
      h('span', { class: `badge status-${bucket}`, testid: 'detail-status' }, bucket),
      h('span', { class: 'badge step', testid: 'detail-step' }, deposit.step),
      isSource(deposit)
        ? h('span', { class: 'badge kind-source', testid: 'detail-kind' }, 'payment source')
        : null,
      deposit.version === undefined ? null : h('span', { class: 'muted' }, `version ${deposit.version}`),
    ),
    facts('summary', [
      ['Amount', amountOf(deposit), 'amount'],
      ['Purpose', deposit.purpose, 'purpose'],
      ['Bank', deposit.bankName, 'bank'],
      ['Connection', deposit.connection, 'connection'],
      ['Wallet account', deposit.walletAccountID],
      ['Created', instant(deposit.createdAt)],
      ['Updated', instant(deposit.updatedAt), 'updated'],
      ['Reference', deposit.reference, 'reference'],
      ['Failure', deposit.type ? `${deposit.type}: ${deposit.msg ?? ''}` : undefined, 'failure'],
    ]),
    section('Waits', 'waits', waitRows(deposit)),
    section('Counters', 'counters', counterRows(deposit)),
    section('Transfer', 'transfer', transferFacts(deposit)),
    section('Resolution', 'resolution', resolutionFacts(deposit)),
    section('Questions to the user', 'user-inputs', userInputs(deposit)),
    section('Provider calls', 'provider-calls', providerCalls(deposit)),
    section('Timeline', 'timeline-section', timeline(deposit)),
  ];
}

function waitRows(deposit) {
  const rows = waits
    .filter(([key]) => deposit[key])
    .map(([key, label]) =>
      h(
        'li',
        { testid: `wait-${key}` },
        h('span', { class: 'label' }, label),
        ' ',
        instant(deposit[key]),
        ' ',
        countdown(deposit[key], `countdown-${key}`),
      ),
    );
  return rows.length ? h('ul', { class: 'waits' }, rows) : null;
}

function counterRows(deposit) {
  const shown = counters.filter(([key]) => typeof deposit[key] === 'number');
  if (shown.length === 0) return null;
  return h(
    'ul',
    { class: 'counters' },
    shown.map(([key, label]) =>
      h(
        'li',
        { class: deposit[key] > 0 ? 'nonzero' : '' },
        h('span', { class: 'label' }, label),
        ' ',
        h('b', { testid: `counter-${key}` }, deposit[key]),
      ),
    ),
  );
}

function transferFacts(deposit) {
  const attempt = deposit.transferAttempt;
  return facts('transfer-facts', [
    [
      'Attempt',
      attempt ? `${instant(attempt.at)}${attempt.answering ? ' (answering the bank)' : ''}` : undefined,
      'attempt',
    ],
    ["Provider's operation", deposit.transferOperationId, 'operation'],
    ['Beneficiary', deposit.beneficiaryId, 'beneficiary'],
  ]);
}

function resolutionFacts(deposit) {
  const resolution = deposit.resolution;
  if (!resolution) return null;
  return facts('resolution-facts', [
    ['Outcome', resolution.outcome, 'outcome'],
    ['By', resolution.by, 'by'],
    ['Reason', resolution.reason, 'reason'],
    ['At', instant(resolution.at)],
    ...(resolution.approval
      ? [
          ['Approved by', resolution.approval.by, 'approved-by'],
          ['Approval', resolution.approval.reason, 'approval-reason'],
          ['Approved at', instant(resolution.approval.at)],
        ]
      : []),
  ]);
}

function userInputs(deposit) {
  if (!Array.isArray(deposit.userInputs) || deposit.userInputs.length === 0) return null;
  return h(
    'ul',
    {},
    deposit.userInputs.map((input) => h('li', {}, `${input.query ?? input.id ?? ''}`)),
  );
}

/** The provider calls, whatever fields each has: shown as `key: value` pairs, in order. */
function providerCalls(deposit) {
  if (!Array.isArray(deposit.providerCalls) || deposit.providerCalls.length === 0) return null;
  return h(
    'ol',
    { class: 'calls' },
    deposit.providerCalls.map((call) =>
      h(
        'li',
        { testid: 'provider-call' },
        Object.entries(call ?? {}).map(([key, value]) =>
          h(
            'span',
            { class: 'pair' },
            h('span', { class: 'label' }, key),
            ' ',
            key === 'at' ? instant(value) : typeof value === 'object' ? JSON.stringify(value) : String(value),
          ),
        ),
      ),
    ),
  );
}

/** The time between two entries: tenths of a second while short, as steps often follow at once. */
function gap(seconds) {
  return seconds < 10 ? `${Math.max(0, seconds).toFixed(1)}s` : duration(seconds);
}

/** The history, oldest first, each entry with the time since the one before. */
function timeline(deposit) {
  const history = Array.isArray(deposit.history) ? deposit.history : [];
  if (history.length === 0) return h('p', { class: 'muted' }, 'No history yet.');
  let previous;
  return h(
    'ol',
    { class: 'timeline', testid: 'timeline' },
    history.map((entry) => {
      const at = Date.parse(entry.at);
      const since = previous === undefined || Number.isNaN(at) ? '' : `+${gap((at - previous) / 1000)}`;
      previous = at;
      return h(
        'li',
        { testid: 'timeline-entry', dataset: { step: entry.step, status: entry.status } },
        h('time', { datetime: entry.at }, instant(entry.at)),
        h('span', { class: 'since' }, since),
        h('span', { class: 'badge step' }, entry.step),
        h('span', { class: `badge status-${entry.status}` }, entry.status),
        entry.note ? h('span', { class: 'note', testid: 'timeline-note' }, entry.note) : null,
      );
    }),
  );
}
