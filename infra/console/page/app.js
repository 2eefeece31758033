// The operator console: deposits by status (tabs with their counts, step and time filters, paged,
// every column), the plots above them, one deposit's timeline, deliveries and actions, and the
// queues; refreshed every 2 s while the box is ticked (the counts and plots every 10 s). Countdowns
// count on the service's clock (`clock.js`), never the browser's.
import { actionsFor } from './actions.js';
import { adoptToken, OpsError, operatorApi } from './api.js';
import { serviceClock, serviceNow } from './clock.js';
import { deliveriesFor } from './deliveries.js';
import { duration, h, instant, replace, tickCountdowns } from './dom.js';
import { columns, listRow, queueRow } from './list.js';
import { overTimePlot, timeToDonePlot } from './plots.js';
import { renderDeposit } from './timeline.js';

const statuses = ['initialized', 'user_input_required', 'outcome_unknown', 'failed', 'done'];
const steps = ['resolve-bank', 'ensure-beneficiary', 'wait-cooldown', 'transfer', 'reconcile', 'completed'];
const refreshEveryMs = 2_000;
/** The counts and plots read many index items: every fifth refresh, and at once when a filter changes. */
const statsEvery = 5;

const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const view = {
  tabs: byId('tabs'),
  filters: /** @type {HTMLFormElement} */ (byId('filters')),
  step: /** @type {HTMLSelectElement} */ (byId('filter-step')),
  from: /** @type {HTMLInputElement} */ (byId('filter-from')),
  to: /** @type {HTMLInputElement} */ (byId('filter-to')),
  rows: byId('deposit-rows'),
  columns: byId('deposit-columns'),
  plots: byId('plots'),
  overviewRange: byId('overview-range'),
  clock: byId('service-clock'),
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
  /** @type {ReturnType<typeof deliveriesFor> | undefined} */
  deliveries: undefined,
  /** Refreshes until the counts and plots are read again (0: at the next one). */
  statsIn: 0,
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

// Tabs (with their counts), columns and filters.
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
      ' ',
      h('span', { class: 'count', testid: `tab-count-${status}` }),
    ),
  );
}
replace(
  view.columns,
  columns.map((title) => h('th', {}, title)),
);
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
  state.statsIn = 0;
  void listNow();
});
view.filters.addEventListener('reset', () => {
  state.filters = {};
  state.cursor = undefined;
  state.statsIn = 0;
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
  state.deliveries = undefined;
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
      listRow(deposit, {
        open: deposit.operationID === state.openId,
        onOpen: () => void open(deposit.operationID),
      }),
    ),
  );
}

/** The counts on the tabs and the plots, for the list's filters (its step and range). */
async function refreshStats() {
  const filters = Object.fromEntries(Object.entries(state.filters).filter(([, value]) => value));
  const stats = await operatorApi.stats(filters);
  for (const status of statuses) {
    const count = stats.counts?.[status];
    const element = view.tabs.querySelector(`[data-testid="tab-count-${status}"]`);
    if (element) element.textContent = count ? `${count.count}${count.capped ? '+' : ''}` : '';
  }
  view.overviewRange.textContent = `created ${instant(stats.overTime.from)} to ${instant(stats.overTime.to)}`;
  replace(view.plots, overTimePlot(stats.overTime, stats.counts), timeToDonePlot(stats.timeToDone));
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
    state.deliveries = deliveriesFor(operationID, { onDone: () => void refreshAll() });
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
  const [deposit, deliveries] = await Promise.all([operatorApi.get(id), operatorApi.deliveries(id)]);
  if (state.openId !== id) return;
  replace(
    view.detailBody,
    renderDeposit(deposit),
    h(
      'section',
      { class: 'panel', testid: 'deliveries-section' },
      h('h3', {}, 'Webhook deliveries'),
      state.deliveries?.render(deliveries),
    ),
  );
  state.actions?.update(deposit);
  for (const row of view.rows.children) {
    row.classList.toggle('open', /** @type {HTMLElement} */ (row).dataset.operationId === id);
  }
}

async function refreshQueues() {
  const { queues } = await operatorApi.queues();
  replace(view.queues, queues.map(queueRow));
}

async function refreshAll() {
  try {
    const stats = state.statsIn <= 0;
    state.statsIn = stats ? statsEvery : state.statsIn - 1;
    await Promise.all([refreshList(), refreshDetail(), refreshQueues(), stats ? refreshStats() : undefined]);
    showError(undefined);
    view.refreshed.textContent = `refreshed ${instant(new Date(serviceNow()).toISOString())}`;
  } catch (error) {
    state.statsIn = 0;
    showError(error);
  }
}

/** The service's time in the header, and how far it is from this browser's when it is. */
function tickClock() {
  const { known, offsetMs } = serviceClock();
  if (!known) return;
  const ahead =
    Math.abs(offsetMs) >= 5_000
      ? ` (${offsetMs > 0 ? 'ahead of' : 'behind'} this browser by ${duration(Math.abs(offsetMs) / 1000)})`
      : '';
  view.clock.textContent = `service time ${instant(new Date(serviceNow()).toISOString())}${ahead}`;
}

/** One refresh every 2 s (never two at once): the list, the open deposit and the queues. */
async function loop() {
  if (view.auto.checked) await refreshAll();
  setTimeout(() => void loop(), refreshEveryMs);
}

adoptToken();
const linked = new URLSearchParams(window.location.hash.slice(1)).get('deposit');
if (linked) void open(linked);
setInterval(() => {
  tickCountdowns();
  tickClock();
}, 250);
void loop();
