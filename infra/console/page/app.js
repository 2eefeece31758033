// The operator console: deposits by status (with step and time filters, paged), one deposit's
// timeline with its actions, and the queues; everything refreshed every 2 s while the box is ticked.
import { actionsFor } from './actions.js';
import { adoptToken, OpsError, operatorApi } from './api.js';
import { h, instant, replace, tickCountdowns } from './dom.js';
import { renderDeposit } from './timeline.js';

const statuses = ['initialized', 'user_input_required', 'outcome_unknown', 'failed', 'done'];
const steps = ['resolve-bank', 'ensure-beneficiary', 'wait-cooldown', 'transfer', 'reconcile', 'completed'];
const refreshEveryMs = 2_000;

const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const view = {
  tabs: byId('tabs'),
  filters: /** @type {HTMLFormElement} */ (byId('filters')),
  step: /** @type {HTMLSelectElement} */ (byId('filter-step')),
  from: /** @type {HTMLInputElement} */ (byId('filter-from')),
  to: /** @type {HTMLInputElement} */ (byId('filter-to')),
  rows: byId('deposit-rows'),
  empty: byId('list-empty'),
  first: /** @type {HTMLButtonElement} */ (byId('first-page')),
  next: /** @type {HTMLButtonElement} */ (byId('next-page')),
  detail: byId('detail'),
  detailBody: byId('detail-body'),
  detailActions: byId('detail-actions'),
  queues: byId('queue-rows'),
  error: byId('error'),
  refreshed: byId('refreshed'),
  auto: /** @type {HTMLInputElement} */ (byId('auto-refresh')),
};

const state = {
  status: 'initialized',
  /** @type {{ step?: string, from?: string, to?: string }} */
  filters: {},
  /** The cursor of the page shown (undefined: the first) and the one after it. */
  cursor: undefined,
  nextCursor: undefined,
  /** @type {string | undefined} */
  openId: undefined,
  /** @type {ReturnType<typeof actionsFor> | undefined} */
  actions: undefined,
};

/** An error of something the operator did stays until the next thing they do; a refresh's goes with the next refresh. */
let sticky = false;

function showError(error, { operator = false } = {}) {
  if (!error) {
    if (sticky && !operator) return;
    sticky = false;
    view.error.hidden = true;
    replace(view.error);
    return;
  }
  const e = error instanceof OpsError ? error : new OpsError(0, 'CONSOLE_ERROR', String(error));
  const hint =
    e.httpStatus === 401 || e.httpStatus === 403
      ? ' Open the console with the link `npm start` printed (it carries the token), or check your AWS credentials.'
      : '';
  replace(
    view.error,
    h('b', { testid: 'error-type' }, e.type),
    ' ',
    h('span', { testid: 'error-msg' }, e.msg),
    e.requestId ? h('span', { class: 'muted' }, ` (request ${e.requestId})`) : null,
    hint,
  );
  view.error.hidden = false;
  sticky = operator;
}

// Tabs and filters.
for (const status of statuses) {
  view.tabs.append(
    h(
      'button',
      {
        type: 'button',
        role: 'tab',
        testid: `tab-${status}`,
        dataset: { status },
        onclick: () => {
          state.status = status;
          state.cursor = undefined;
          void listNow();
        },
      },
      status,
    ),
  );
}
view.step.append(
  h('option', { value: '' }, 'any'),
  ...steps.map((step) => h('option', { value: step }, step)),
);
const isoOf = (local) => (local ? new Date(local).toISOString() : undefined);
view.filters.addEventListener('submit', (event) => {
  event.preventDefault();
  state.filters = {
    step: view.step.value || undefined,
    from: isoOf(view.from.value),
    to: isoOf(view.to.value),
  };
  state.cursor = undefined;
  void listNow();
});
view.filters.addEventListener('reset', () => {
  state.filters = {};
  state.cursor = undefined;
  setTimeout(() => void listNow());
});
view.step.addEventListener('change', () => view.filters.requestSubmit());
view.first.addEventListener('click', () => {
  state.cursor = undefined;
  void listNow();
});
view.next.addEventListener('click', () => {
  state.cursor = state.nextCursor;
  void listNow();
});
byId('find').addEventListener('submit', (event) => {
  event.preventDefault();
  const id = /** @type {HTMLInputElement} */ (byId('find-id')).value.trim();
  if (id) void open(id);
});
function closeDetail() {
  rememberOpen(undefined);
  state.openId = undefined;
  state.actions = undefined;
  view.detail.hidden = true;
}
byId('close-detail').addEventListener('click', closeDetail);

/** The list again, now (a tab, a filter, a page): its failure shown, not thrown. */
const listNow = () =>
  refreshList().then(
    () => showError(undefined, { operator: true }),
    (error) => showError(error, { operator: true }),
  );

function listQuery() {
  return { status: state.status, ...state.filters, ...(state.cursor ? { cursor: state.cursor } : {}) };
}

async function refreshList() {
  for (const tab of view.tabs.children) {
    tab.setAttribute(
      'aria-selected',
      String(/** @type {HTMLElement} */ (tab).dataset.status === state.status),
    );
  }
  const query = listQuery();
  const page = await operatorApi.list(query);
  // A tab or a filter changed while this page was on its way: the newer list wins.
  if (JSON.stringify(query) !== JSON.stringify(listQuery())) return;
  state.nextCursor = page.cursor;
  view.next.disabled = !page.cursor;
  view.first.disabled = !state.cursor;
  view.empty.hidden = page.deposits.length > 0;
  replace(
    view.rows,
    page.deposits.map((deposit) =>
      h(
        'tr',
        {
          testid: 'deposit-row',
          dataset: { operationId: deposit.operationID },
          class: deposit.operationID === state.openId ? 'open' : '',
          onclick: () => void open(deposit.operationID),
        },
        h('td', {}, instant(deposit.createdAt)),
        h('td', {}, h('a', { href: '#', onclick: (event) => event.preventDefault() }, deposit.operationID)),
        h('td', { class: 'amount' }, `${deposit.amount} ${deposit.currency}`),
        h('td', { testid: 'row-step' }, deposit.step),
        h('td', {}, deposit.bankName ?? ''),
        h('td', {}, deposit.connection ?? ''),
        h('td', {}, deposit.type ?? ''),
        h('td', {}, instant(deposit.updatedAt)),
      ),
    ),
  );
}

/** The open deposit stays in the address bar's fragment (`#deposit=<id>`), so a reload or a link keeps it. */
function rememberOpen(operationID) {
  const hash = operationID ? `#deposit=${encodeURIComponent(operationID)}` : '';
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}${hash}`);
}

async function open(operationID) {
  if (state.openId !== operationID) {
    rememberOpen(operationID);
    state.openId = operationID;
    state.actions = actionsFor(operationID, { onDone: () => void refreshAll() });
    replace(view.detailActions, state.actions.element);
    replace(view.detailBody, h('p', { class: 'muted' }, 'Loading...'));
    view.detail.hidden = false;
  }
  try {
    await refreshDetail();
    showError(undefined, { operator: true });
  } catch (error) {
    closeDetail();
    showError(error, { operator: true });
  }
}

async function refreshDetail() {
  const id = state.openId;
  if (!id) return;
  const deposit = await operatorApi.get(id);
  if (state.openId !== id) return;
  replace(view.detailBody, renderDeposit(deposit));
  state.actions?.update(deposit);
  for (const row of view.rows.children) {
    row.classList.toggle('open', /** @type {HTMLElement} */ (row).dataset.operationId === id);
  }
}

async function refreshQueues() {
  const { queues } = await operatorApi.queues();
  replace(
    view.queues,
    queues.map((queue) =>
      h(
        'tr',
        { testid: `queue-${queue.name}`, class: queue.dlq?.visible > 0 ? 'dlq-alert' : '' },
        h('td', {}, queue.name),
        h('td', { testid: 'queue-visible' }, queue.visible),
        h('td', {}, queue.inFlight),
        h('td', {}, queue.delayed),
        h('td', {}, queue.dlq?.name ?? ''),
        h('td', { testid: 'dlq-depth', class: 'dlq-depth' }, queue.dlq?.visible ?? ''),
      ),
    ),
  );
}

async function refreshAll() {
  try {
    await Promise.all([refreshList(), refreshDetail(), refreshQueues()]);
    showError(undefined);
    view.refreshed.textContent = `refreshed ${instant(new Date().toISOString())}`;
  } catch (error) {
    showError(error);
  }
}

/** One refresh every 2 s (never two at once): the list, the open deposit and the queues. */
async function loop() {
  if (view.auto.checked) await refreshAll();
  setTimeout(() => void loop(), refreshEveryMs);
}

adoptToken();
const linked = new URLSearchParams(window.location.hash.slice(1)).get('deposit');
if (linked) void open(linked);
setInterval(tickCountdowns, 250);
void loop();
