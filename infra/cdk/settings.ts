/**
 * What the topology does not say and AWS needs: each handler's timeout, memory and exactly what it
 * may touch, and each queue's alarm threshold. Keyed by the topology's own entries (handler paths,
 * queue keys), so a handler added to the topology without settings fails the synth.
 * The orchestrator's grants follow from `shared/deposits/reach.ts` (`grants.ts`).
 */
import {
  type ApiSpec,
  depositsApi,
  operatorApi,
  outbox,
  queues,
  sandboxApi,
  sweeper,
  type tables,
} from '#infra/topology';
import { type ReachName, reach } from '#shared/deposits/reach';
import { faultWaitBudgetMs, sandboxFunctionTimeoutSeconds } from '#shared/provider/interface/limits';
import { type Grants, grantsOf } from './grants.ts';

export type TableKey = keyof typeof tables;
export type QueueKey = keyof typeof queues;
export type SecretKey = 'webhookSigning' | 'sandboxApp' | 'ownerKey';
export type Component = 'deposits' | 'sandbox';

export interface FunctionSettings extends Omit<Grants, 'table' | 'index' | 'secrets'> {
  /** The handler module, relative to the project root (the topology's path). */
  handler: string;
  component: Component;
  /** Short name, such as `steps-transfer`: construct ids, alarm names, the dashboard. */
  name: string;
  timeoutSeconds: number;
  memoryMb: number;
  /** Item-level actions on one table. */
  table?: { key: TableKey; actions: readonly string[] };
  /** Query on these indexes of one table. */
  index?: { key: TableKey; names: readonly string[] };
  /** The secrets it reads (at cold start), by their ARNs in its environment. */
  secrets: readonly SecretKey[];
  /** The DLQs it sends to itself (the outbox relay's, where it sets aside what it could not relay). */
  sendsToDlqOf?: readonly QueueKey[];
}

/** Bounds for the tuning variables, so that a call always ends inside its function's timeout. */
export const limits = {
  /** Step functions run 30 s: one provider call, the 2 s wait for a busy connection, a few writes. */
  providerTimeoutMs: 20_000,
  webhookTimeoutMs: 20_000,
  /** The sandbox's injected waits (latency and hang) fit inside its 30 s functions (the HTTP API's limit). */
  sandboxTimeoutMs: faultWaitBudgetMs,
  /**
   * The sweeper must never re-drive a step that may still be running (a live transfer would then be
   * failed as unknown while it succeeds): at least twice the longest step function's 80 s.
   */
  minStallAfterSeconds: 160,
};

const actions = {
  sandbox: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'],
} as const;

function nameOf(handler: string): string {
  const match = /^functions\/(.+)\.ts$/.exec(handler);
  if (!match?.[1]) throw new Error(`topology handler ${handler} is not functions/<group>/<name>.ts`);
  return match[1].replaceAll('/', '-');
}

function route(api: ApiSpec, method: string, path: string): string {
  const found = api.routes.find((candidate) => candidate.method === method && candidate.path === path);
  if (!found) throw new Error(`the topology's ${api.name} API has no route ${method} ${path}`);
  return found.handler;
}

const apiHandlers = (api: ApiSpec) => [
  ...api.routes.map((candidate) => candidate.handler),
  api.defaultHandler,
];

type Settings = Omit<FunctionSettings, 'handler' | 'name'>;

const nothing = { sendsTo: [], createsSchedules: false, secrets: [] } as const;

function buildSettings(): Map<string, FunctionSettings> {
  const byHandler = new Map<string, FunctionSettings>();
  const add = (handler: string, settings: Settings) => {
    if (byHandler.has(handler)) throw new Error(`topology handler ${handler} appears twice`);
    byHandler.set(handler, { handler, name: nameOf(handler), ...settings });
  };

  // The deposits API: create starts (and resumes) deposits, get reads one, list a connection's,
  // cancel ends one before its transfer; the rest answer alone.
  const routesWithReach = new Map<string, ReachName>([
    [route(depositsApi, 'POST', '/v1/deposits/create'), 'create'],
    [route(depositsApi, 'POST', '/v1/deposits/get'), 'get'],
    [route(depositsApi, 'POST', '/v1/deposits/answer'), 'answer'],
    [route(depositsApi, 'POST', '/v1/deposits/list'), 'list'],
    [route(depositsApi, 'POST', '/v1/deposits/cancel'), 'cancel'],
    [route(depositsApi, 'POST', '/v1/sources/create'), 'createSource'],
    [route(depositsApi, 'POST', '/v1/sources/get'), 'getSource'],
    [route(depositsApi, 'POST', '/v1/sources/list'), 'listSources'],
    [route(depositsApi, 'POST', '/v1/sources/cancel'), 'cancelSource'],
  ]);
  for (const handler of apiHandlers(depositsApi)) {
    const base = { component: 'deposits', ...nothing } as const;
    const name = routesWithReach.get(handler);
    if (name) add(handler, { ...base, timeoutSeconds: 10, memoryMb: 512, ...grantsOf(name) });
    else add(handler, { ...base, timeoutSeconds: 5, memoryMb: 256 });
  }

  // The operator API: each route's reach is its handler's name (`operator-list` and the others);
  // the `$default` route answers alone.
  for (const handler of apiHandlers(operatorApi)) {
    const base = { component: 'deposits', ...nothing } as const;
    if (handler === operatorApi.defaultHandler) {
      add(handler, { ...base, timeoutSeconds: 5, memoryMb: 256 });
      continue;
    }
    const name = nameOf(handler);
    if (!(name in reach)) throw new Error(`the operator handler ${handler} has no reach entry ${name}`);
    add(handler, { ...base, timeoutSeconds: 10, memoryMb: 512, ...grantsOf(name as ReachName) });
  }

  for (const [key, spec] of Object.entries(queues) as [QueueKey, (typeof queues)[QueueKey]][]) {
    if (key === 'notify') {
      // Delivers to the webhook; retries by hiding the message again (part of consuming it); records
      // each try (its line of reach).
      add(spec.consumer, {
        component: 'deposits',
        ...nothing,
        timeoutSeconds: 30,
        memoryMb: 512,
        ...grantsOf('notifier'),
        secrets: ['webhookSigning'],
      });
      continue;
    }
    if (key === 'outboxRelay') {
      // Relays again what an operator redrove from the outbox relay's DLQ.
      add(spec.consumer, {
        component: 'deposits',
        ...nothing,
        timeoutSeconds: 30,
        memoryMb: 256,
        sendsTo: ['notify'],
      });
      continue;
    }
    const step = spec.localName as ReachName;
    add(spec.consumer, {
      component: 'deposits',
      ...nothing,
      // ensure-beneficiary may list, create, and list again for the new beneficiary's id: three
      // provider calls, each with a fresh lease.
      timeoutSeconds: step === 'ensure-beneficiary' ? 80 : 30,
      memoryMb: 512,
      ...grantsOf(step),
    });
  }

  // Relays each version's event from the table's stream to the notify queue, or sets it aside in its
  // DLQ; reading the stream is granted with its event source mapping, on that stream only.
  add(outbox.handler, {
    component: 'deposits',
    ...nothing,
    timeoutSeconds: 30,
    memoryMb: 256,
    sendsTo: ['notify'],
    sendsToDlqOf: [outbox.queue],
  });

  // Finds deposits past their check time on the sparse index and sends their step again.
  add(sweeper.handler, {
    component: 'deposits',
    ...nothing,
    timeoutSeconds: sweeper.timeoutSeconds,
    memoryMb: 512,
    ...grantsOf('sweeper'),
  });

  // The provider operations and administration load the sandbox, which reads the application secret
  // at start; health, not-found and the bank catalog load neither the sandbox nor its table.
  const tableless = new Set([
    sandboxApi.defaultHandler,
    route(sandboxApi, 'GET', '/health'),
    route(sandboxApi, 'GET', '/sandbox/banks'),
  ]);
  for (const handler of apiHandlers(sandboxApi)) {
    add(handler, {
      component: 'sandbox',
      ...nothing,
      timeoutSeconds: sandboxFunctionTimeoutSeconds,
      memoryMb: 256,
      ...(tableless.has(handler)
        ? {}
        : { table: { key: 'sandbox', actions: actions.sandbox }, secrets: ['sandboxApp'] as const }),
    });
  }
  return byHandler;
}

/** Settings of every topology handler, by handler path. */
export const functionSettings: ReadonlyMap<string, FunctionSettings> = buildSettings();

export function functionsOf(component: Component): FunctionSettings[] {
  return [...functionSettings.values()].filter((settings) => settings.component === component);
}

export function settingsOf(handler: string): FunctionSettings {
  const settings = functionSettings.get(handler);
  if (!settings) throw new Error(`no function settings for topology handler ${handler}`);
  return settings;
}

/**
 * Age of the oldest message past which a queue's alarm fires. Step messages are picked up within
 * seconds, but some are sent with a delay of up to 15 minutes (a short cool-down, a question's
 * expiry), so 20 minutes means the consumers are stuck. Webhook deliveries back off (up to an hour
 * between tries, over six hours in all), so an hour means a webhook receiver has been refusing for
 * a while: worth a look long before its events reach the DLQ (the outbox relay's: only redrives).
 */
export const queueAlarms: Record<QueueKey, { oldestMessageSeconds: number }> = {
  resolveBank: { oldestMessageSeconds: 1_200 },
  ensureBeneficiary: { oldestMessageSeconds: 1_200 },
  waitCooldown: { oldestMessageSeconds: 1_200 },
  transfer: { oldestMessageSeconds: 1_200 },
  reconcile: { oldestMessageSeconds: 1_200 },
  notify: { oldestMessageSeconds: 3_600 },
  outboxRelay: { oldestMessageSeconds: 1_200 },
};

/** Each API's `$default` stage: requests per second, steady and in bursts (raise with your traffic). */
export const apiThrottle = { rateLimit: 100, burstLimit: 200 };

/**
 * Each deposits route's own throttle on the stage (requests per second, burst), below the stage's:
 * a create starts work on four queues and the provider, a list reads a page of deposits, a read is
 * one item. CDK context `depositsThrottle` overrides any of them.
 */
export const depositsRouteThrottle: Record<string, { rateLimit: number; burstLimit: number }> = {
  'POST /v1/deposits/create': { rateLimit: 25, burstLimit: 50 },
  'POST /v1/deposits/get': { rateLimit: 100, burstLimit: 200 },
  // An answer comes once per question a bank asks (an OTP): a few per deposit at most.
  'POST /v1/deposits/answer': { rateLimit: 10, burstLimit: 20 },
  'POST /v1/deposits/list': { rateLimit: 20, burstLimit: 40 },
  'POST /v1/deposits/cancel': { rateLimit: 10, burstLimit: 20 },
  // Sources are created once per user and wallet account, at onboarding, and read while they cool.
  'POST /v1/sources/create': { rateLimit: 10, burstLimit: 20 },
  'POST /v1/sources/get': { rateLimit: 50, burstLimit: 100 },
  'POST /v1/sources/list': { rateLimit: 10, burstLimit: 20 },
  'POST /v1/sources/cancel': { rateLimit: 10, burstLimit: 20 },
  'GET /health': { rateLimit: 5, burstLimit: 10 },
};

/**
 * Each API function's reserved concurrency: at most this many instances at once, so that a flood of
 * calls (creates above all) cannot take the account's concurrency from the step consumers, which
 * share what is left. About a second of the route's steady rate (`depositsRouteThrottle`: a call
 * takes tens to hundreds of milliseconds warm, about a second cold), at most 50 for the reads, which
 * take tens of milliseconds; 5 for what answers alone; the operator API serves a few people. 270 in
 * all: an account's default 1,000 keeps 730 unreserved, far above Lambda's minimum of 100 and the
 * consumers' ceiling. CDK context `reservedConcurrency` changes any of them, or sets none (`false`).
 */
export const apiReservedConcurrency: Record<string, number> = {
  'deposits-create': 25,
  'deposits-get': 50,
  'deposits-answer': 10,
  'deposits-list': 20,
  'deposits-cancel': 10,
  'sources-create': 10,
  'sources-get': 50,
  'sources-list': 10,
  'sources-cancel': 10,
  'deposits-health': 5,
  'deposits-not-found': 5,
  'operator-list': 10,
  'operator-get': 10,
  'operator-queues': 10,
  'operator-resolve': 5,
  'operator-cancel': 5,
  'operator-redrive': 5,
  'operator-deliveries': 5,
  'operator-resend': 5,
  'operator-stats': 5,
  'operator-not-found': 5,
};

/** Lambda refuses reservations that leave an account fewer unreserved executions than this. */
export const lambdaUnreservedMinimum = 100;

/** The most the queue consumers run at once: each queue's event source mapping's `maxConcurrency`. */
export const consumersConcurrency = Object.values(queues).reduce(
  (total, spec) => total + spec.maxConcurrency,
  0,
);

/** An SQS message stays hidden this many times its consumer's timeout (AWS's advice: at least six). */
export const visibilityTimeoutFactor = 6;

/**
 * Most code a function's bundle may have (index.mjs, minified, the AWS SDK included; the source map
 * aside): a larger bundle loads more slowly on every cold start. The tests measure every bundle
 * (`test/infra/app.test.ts`). The aim is 300 KiB; the AWS SDK is 220 to 290 KiB of a bundle and the
 * tracer's X-Ray SDK 120 to 140 KiB more (docs/performance.md), so this holds what was reached,
 * with a tenth to spare.
 */
export const bundleBudgetBytes = 704 * 1024;

/** The names the handlers log and measure under (Powertools). */
export const observability = { namespace: 'BankDataAndPayments' } as const;

/** A construct id from a name or key: `steps-transfer` and `resolveBank` become `StepsTransfer`, `ResolveBank`. */
export function pascal(name: string): string {
  return name.replace(/(^|-)([a-z0-9])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());
}
