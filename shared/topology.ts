/**
 * What the service is made of: tables, HTTP APIs and their routes, queues, and the handler of each,
 * by its one name (`HandlerName`). The CDK app and the local stack both read this module, so what
 * runs locally is what deploys; the handlers that answer from it (the not-found routes, the webhook
 * deliverer) read it too.
 */
import { stepMessageMaxTries, stepQueueVariables } from '#shared/config';
import type { WorkStep } from '#shared/deposits/model/deposit';
import { dueProjection } from '#shared/deposits/ports/records';
import { wakeTargets } from '#shared/deposits/reach';
import { dapiV2Dialect, type ProviderCall, sharedPaths } from '#shared/provider/interface/dialects';

export interface TableSpec {
  /** Environment variable through which handlers receive the table's name. */
  envVar: string;
  /** Name of the table on the local stack. */
  localName: string;
  partitionKey: string;
  sortKey: string;
  timeToLiveAttribute?: string;
  /**
   * Global secondary indexes: string partition key, numeric sort key; all attributes projected, or
   * only the keys (an item's later updates then never write the index, when its keys stay), or the
   * keys and the attributes `include` names (written again only when one of those changes).
   */
  indexes?: {
    name: string;
    partitionKey: string;
    sortKey: string;
    keysOnly?: boolean;
    include?: readonly string[];
  }[];
  /** A stream of each item's new image, for a consumer of its changes. */
  stream?: 'NEW_IMAGE';
}

export interface QueueSpec<N extends string = HandlerName> {
  /** Environment variables through which handlers receive the queue's URL (and ARN). */
  urlEnvVar: string;
  arnEnvVar?: string;
  localName: string;
  /** The handler consuming it. */
  handler: N;
  /** Receives after which a message goes to the queue's DLQ. */
  maxReceiveCount: number;
  batchSize: number;
  /** At most this many concurrent consumers, to protect the provider. */
  maxConcurrency: number;
}

export interface RouteSpec<N extends string = HandlerName> {
  method: 'GET' | 'POST';
  path: string;
  /** The handler's name (its module: `handlerFile`). */
  handler: N;
  /**
   * Changes something (a deposit, a queue's message): on the operator API, only the acting
   * operators' policy reaches it; the read-only one does not.
   */
  acts?: true;
}

export interface ApiSpec<N extends string = HandlerName> {
  name: string;
  routes: readonly RouteSpec<N>[];
  /** Answers every method and path the routes do not. */
  defaultHandler: N;
  tables: readonly (keyof typeof tables)[];
}

/**
 * A handler's one name, `<group>-<file>`: its module is `functions/<group>/<file>.ts` (`handlerFile`),
 * and the same name keys its line of `shared/deposits/reach.ts` (the orchestrator's), its settings
 * (`infra/cdk/settings.ts`), its function in AWS and its environment. Every handler of the topology:
 * the APIs' routes and default routes, the queues' consumers, the outbox relay and the sweeper.
 */
export type HandlerName =
  | ApiHandler<typeof depositsLines>
  | ApiHandler<typeof sandboxLines>
  | ApiHandler<typeof operatorLines>
  | (typeof queues)[keyof typeof queues]['handler']
  | typeof outbox.handler
  | typeof sweeper.handler;
type ApiHandler<A extends ApiSpec<string>> = A['routes'][number]['handler'] | A['defaultHandler'];

/** A handler's module, relative to the project root: `functions/<group>/<file>.ts`; it exports `handler`. */
export function handlerFile(name: HandlerName): string {
  const dash = name.indexOf('-');
  return `functions/${name.slice(0, dash)}/${name.slice(dash + 1)}.ts`;
}

export const tables = {
  sandbox: {
    envVar: 'SANDBOX_TABLE_NAME',
    localName: 'sandbox',
    partitionKey: 'pk',
    sortKey: 'sk',
    timeToLiveAttribute: 'expiresAt',
  },
  deposits: {
    envVar: 'DEPOSITS_TABLE_NAME',
    localName: 'deposits',
    partitionKey: 'pk',
    sortKey: 'sk',
    timeToLiveAttribute: 'expiresAt',
    // Sparse: only deposits still in flight carry `checkShard`; the sweeper queries it by `checkAt`,
    // and needs of each deposit only what re-driving it takes (`dueProjection`): a write of the
    // deposit writes a small index item, not a copy of the whole deposit.
    // And by owner (deposit items only carry `listedBy`): a connection's deposits, newest first.
    // Keys only: neither key changes after the deposit's first write, so its later writes (a
    // deposit makes about eight) cost the index nothing; the list reads the page's items by key.
    indexes: [
      { name: 'byCheckAt', partitionKey: 'checkShard', sortKey: 'checkAt', include: dueProjection },
      { name: 'byOwner', partitionKey: 'listedBy', sortKey: 'createdAt', keysOnly: true },
      // By the backend that created it (`backendListedBy`, on deposit items created by a backend
      // identity, in one of 8 shards): the list of a backend that reads by its own identity,
      // whatever the connection.
      // Keys and the status, so a list of one status is filtered in the index: written when the
      // status changes (a few times a deposit), not on its other writes.
      { name: 'byBackend', partitionKey: 'backendListedBy', sortKey: 'createdAt', include: ['status'] },
      // The operator's list: by status bucket (`opsBucket`, on deposit items only), newest first.
      // The keys and the step: written when the bucket or the step changes (a deposit's transitions),
      // not on its retries and check times; the list filters by step here and reads the page by key.
      { name: 'byStatus', partitionKey: 'opsBucket', sortKey: 'createdAt', include: ['step'] },
    ],
    // The outbox: each deposit version's event is relayed from here.
    stream: 'NEW_IMAGE',
  },
} as const satisfies Record<string, TableSpec>;

/** A step's queue: its handler, and its ARN for the handlers whose schedules target it. */
const stepQueue = <S extends WorkStep>(step: S) => ({
  urlEnvVar: stepQueueVariables[step].url,
  ...(wakeTargets.includes(step) ? { arnEnvVar: stepQueueVariables[step].arn } : {}),
  localName: step,
  handler: `steps-${step}` as const,
  // The step fails its deposit on the last try rather than leave it to the DLQ.
  maxReceiveCount: stepMessageMaxTries,
  batchSize: 10,
  maxConcurrency: 5,
});

/**
 * One queue (with its DLQ) and one handler per deposit step, plus the webhook notifier, and the outbox
 * relay's: the relay sets aside in its DLQ each event it could not relay, whole; redriven to it, its
 * consumer relays them again.
 */
export const queues = {
  resolveBank: stepQueue('resolve-bank'),
  ensureBeneficiary: stepQueue('ensure-beneficiary'),
  waitCooldown: stepQueue('wait-cooldown'),
  transfer: stepQueue('transfer'),
  reconcile: stepQueue('reconcile'),
  notify: {
    urlEnvVar: 'NOTIFY_QUEUE_URL',
    localName: 'notify',
    handler: 'notifier-deliver',
    // Webhook deliveries retry with backoff (2 s doubling, at most an hour between tries): 17 tries
    // span over six hours; after the last one the event rests in the DLQ.
    maxReceiveCount: 17,
    batchSize: 10,
    maxConcurrency: 5,
  },
  outboxRelay: {
    urlEnvVar: 'OUTBOX_RELAY_QUEUE_URL',
    localName: 'outbox-relay',
    handler: 'notifier-relay-again',
    // A record that still cannot be relayed goes back to the DLQ it was redriven from.
    maxReceiveCount: 5,
    batchSize: 10,
    // Lambda's least: what a redrive brings is a backlog of events, not a rate to keep up with.
    maxConcurrency: 2,
  },
} as const satisfies Record<string, QueueSpec<string>>;

/**
 * The queues the operator API watches: every queue of the topology, each with its DLQ, named by its
 * local name; `urls` gives each one's URLs where it runs (the local stack, the CDK stack), which
 * reach the operator's queues handler as `OPERATOR_QUEUES`.
 */
export function watchedQueues(urls: (key: keyof typeof queues) => { url: string; dlqUrl: string }) {
  return (Object.keys(queues) as (keyof typeof queues)[]).map((key) => {
    const { url, dlqUrl } = urls(key);
    const name = queues[key].localName;
    return { name, url, dlqName: `${name}-dlq`, dlqUrl };
  });
}
export const watchedQueuesVariable = 'OPERATOR_QUEUES';

/** The topology key of each step's queue. */
export const stepQueueKeys = {
  'resolve-bank': 'resolveBank',
  'ensure-beneficiary': 'ensureBeneficiary',
  'wait-cooldown': 'waitCooldown',
  transfer: 'transfer',
  reconcile: 'reconcile',
} as const satisfies Record<WorkStep, keyof typeof queues>;

/**
 * The outbox relay: consumes the deposits table's stream and sends each version's event to the
 * notify queue. A record it cannot relay after a few tries it sets aside whole in its DLQ (the
 * `outboxRelay` queue's, whose URL `dlqUrlEnvVar` gives it); one it cannot set aside either the
 * stream brings again, `retryAttempts` times, then the event source mapping's DLQ keeps its position.
 */
export const outbox = {
  handler: 'notifier-outbox',
  table: 'deposits',
  batchSize: 100,
  retryAttempts: 10,
  /** Only the images that carry an event reach the function. */
  eventAttribute: 'event',
  queue: 'outboxRelay',
  dlqUrlEnvVar: 'OUTBOX_RELAY_DLQ_URL',
} as const;

/**
 * The sweeper re-drives deposits that stopped moving; it runs on a recurring schedule. Its timeout
 * (in AWS and in the local stack alike) is under its period, and a run stops taking deposits while
 * time is left (`shared/deposits/background/sweeper.ts`), so runs do not pile up.
 */
export const sweeper = { handler: 'steps-sweeper', everyMinutes: 1, timeoutSeconds: 50 } as const;

/** EventBridge Scheduler group of the one-shot wake-up schedules. */
export const scheduleGroup = { envVar: 'SCHEDULE_GROUP_NAME', localName: 'deposits' };

const depositsLines = {
  name: 'deposits',
  tables: ['deposits'],
  defaultHandler: 'deposits-not-found',
  routes: [
    { method: 'POST', path: '/v1/deposits/create', handler: 'deposits-create' },
    { method: 'POST', path: '/v1/deposits/get', handler: 'deposits-get' },
    { method: 'POST', path: '/v1/deposits/answer', handler: 'deposits-answer' },
    { method: 'POST', path: '/v1/deposits/list', handler: 'deposits-list' },
    { method: 'POST', path: '/v1/deposits/cancel', handler: 'deposits-cancel' },
    { method: 'POST', path: '/v1/sources/create', handler: 'sources-create' },
    { method: 'POST', path: '/v1/sources/get', handler: 'sources-get' },
    { method: 'POST', path: '/v1/sources/list', handler: 'sources-list' },
    { method: 'POST', path: '/v1/sources/cancel', handler: 'sources-cancel' },
    { method: 'GET', path: '/health', handler: 'deposits-health' },
  ],
} as const satisfies ApiSpec<string>;
export const depositsApi: ApiSpec = depositsLines;

/** The handler of each call at a path only the `dapi-v2` dialect serves. */
const v2Handlers = {
  exchangeToken: 'sandbox-v2-exchange-token',
  metadata: 'sandbox-v2-metadata-get',
  beneficiariesGet: 'sandbox-v2-beneficiaries-get',
  beneficiariesCreate: 'sandbox-v2-beneficiaries-create',
  transferCreate: 'sandbox-v2-transfer-create',
  transferAutoflow: 'sandbox-v2-transfer-autoflow',
} as const satisfies Partial<Record<ProviderCall, string>>;

function v2OwnRoutes(): RouteSpec<(typeof v2Handlers)[keyof typeof v2Handlers]>[] {
  const shared = new Set(sharedPaths());
  return Object.entries(v2Handlers)
    .map(([call, handler]) => ({ path: dapiV2Dialect.paths[call as ProviderCall], handler }))
    .filter(({ path }) => !shared.has(path))
    .map(({ path, handler }) => ({ method: 'POST', path, handler }));
}

const sandboxLines = {
  name: 'sandbox',
  tables: ['sandbox'],
  defaultHandler: 'sandbox-not-found',
  routes: [
    { method: 'POST', path: '/v1/auth/ExchangeToken', handler: 'sandbox-exchange-token' },
    { method: 'POST', path: '/v1/metadata/accounts/get', handler: 'sandbox-metadata-get' },
    { method: 'POST', path: '/v1/payment/beneficiaries/get', handler: 'sandbox-beneficiaries-get' },
    {
      method: 'POST',
      path: '/v1/payment/beneficiaries/create',
      handler: 'sandbox-beneficiaries-create',
    },
    { method: 'POST', path: '/v1/payment/transfer/create', handler: 'sandbox-transfer-create' },
    { method: 'POST', path: '/v1/payment/transfer/autoflow', handler: 'sandbox-transfer-autoflow' },
    { method: 'POST', path: '/v2/data/balance/get', handler: 'sandbox-balance-get' },
    { method: 'POST', path: '/v2/operation/get', handler: 'sandbox-operation-get' },
    // An alias of the read above, at the sandbox's first path: its own function, removed with it.
    { method: 'POST', path: '/v1/operation/get', handler: 'sandbox-operation-get-v1' },
    // The `dapi-v2` dialect's own paths (the dialect table's; the two it shares with the spec are above).
    ...v2OwnRoutes(),
    { method: 'GET', path: '/sandbox/banks', handler: 'sandbox-banks-list' },
    { method: 'POST', path: '/sandbox/applications', handler: 'sandbox-applications-create' },
    { method: 'POST', path: '/sandbox/users', handler: 'sandbox-users-create' },
    { method: 'POST', path: '/sandbox/users/get', handler: 'sandbox-users-get' },
    { method: 'POST', path: '/sandbox/faults', handler: 'sandbox-faults-set' },
    { method: 'GET', path: '/health', handler: 'sandbox-health' },
  ],
} as const satisfies ApiSpec<string>;
export const sandboxApi: ApiSpec = sandboxLines;

/**
 * The operator API: any deposit, for the people who run the service. IAM (SigV4) on every route in
 * AWS, the operator token locally (`infra/local/gateway.ts`); `shared/operator/` is its domain.
 */
const operatorLines = {
  name: 'operator',
  tables: ['deposits'],
  defaultHandler: 'operator-not-found',
  routes: [
    { method: 'POST', path: '/v1/ops/deposits/list', handler: 'operator-list' },
    { method: 'POST', path: '/v1/ops/deposits/get', handler: 'operator-get' },
    { method: 'POST', path: '/v1/ops/deposits/resolve', handler: 'operator-resolve', acts: true },
    { method: 'POST', path: '/v1/ops/deposits/cancel', handler: 'operator-cancel', acts: true },
    { method: 'POST', path: '/v1/ops/deposits/redrive', handler: 'operator-redrive', acts: true },
    { method: 'POST', path: '/v1/ops/deposits/deliveries', handler: 'operator-deliveries' },
    { method: 'POST', path: '/v1/ops/deposits/resend', handler: 'operator-resend', acts: true },
    { method: 'POST', path: '/v1/ops/deposits/stats', handler: 'operator-stats' },
    { method: 'POST', path: '/v1/ops/queues', handler: 'operator-queues' },
  ],
} as const satisfies ApiSpec<string>;
export const operatorApi: ApiSpec = operatorLines;
