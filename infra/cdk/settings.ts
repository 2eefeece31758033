/**
 * What the topology does not say and AWS needs: each handler's timeout, memory and exactly what it
 * may touch, and each queue's alarm threshold. Keyed by the handler's one name (`HandlerName`): a
 * handler of the topology without settings, or settings of a handler it lacks, fail the type check.
 * The orchestrator's grants follow from its line of `shared/deposits/reach.ts` (`grants.ts`).
 */

import type { ReachName } from '#shared/deposits/reach';
import { faultWaitBudgetMs, sandboxFunctionTimeoutSeconds } from '#shared/provider/interface/limits';
import { type HandlerName, handlerFile, queues, sweeper, type tables } from '#shared/topology';
import { type Grants, grantsOf } from './grants.ts';

export type TableKey = keyof typeof tables;
export type QueueKey = keyof typeof queues;
export type SecretKey = 'webhookSigning' | 'sandboxApp' | 'ownerKey';
export type Component = 'deposits' | 'sandbox';

export interface FunctionSettings extends Omit<Grants, 'table' | 'index' | 'secrets'> {
  /** The handler's one name, such as `steps-transfer`: construct ids, alarm names, the dashboard. */
  name: HandlerName;
  /** Its module, relative to the project root (`handlerFile`): the function's entry and description. */
  file: string;
  component: Component;
  timeoutSeconds: number;
  memoryMb: number;
  /** Item-level actions on one table. */
  table?: { key: TableKey; actions: readonly string[] };
  /** Query on these indexes of one table. */
  index?: { key: TableKey; names: readonly string[] };
  /** The secrets it reads (at cold start), by their ARNs in its environment. */
  secrets: readonly SecretKey[];
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

/** A function's size, and the secrets its line of reach does not say. */
interface Size {
  timeoutSeconds: number;
  memoryMb: number;
  secrets?: readonly SecretKey[];
}

/** A route that works (reads or changes deposits); one that answers alone; a step's queue consumer. */
const route = { timeoutSeconds: 10, memoryMb: 512 } as const;
const alone = { timeoutSeconds: 5, memoryMb: 256 } as const;
const consumer = { timeoutSeconds: 30, memoryMb: 512 } as const;

/** The orchestrator's functions, one per line of `shared/deposits/reach.ts`, whose grants follow from it. */
const depositsSizes = {
  'deposits-create': route,
  'deposits-get': route,
  'deposits-answer': route,
  'deposits-list': route,
  'deposits-cancel': route,
  'sources-create': route,
  'sources-get': route,
  'sources-list': route,
  'sources-cancel': route,
  'deposits-health': alone,
  'deposits-not-found': alone,
  'operator-list': route,
  'operator-get': route,
  'operator-resolve': route,
  'operator-cancel': route,
  'operator-redrive': route,
  'operator-deliveries': route,
  'operator-resend': route,
  'operator-stats': route,
  'operator-queues': route,
  'operator-not-found': alone,
  'steps-resolve-bank': consumer,
  // ensure-beneficiary may list, create, and list again for the new beneficiary's id: three
  // provider calls, each with a fresh lease.
  'steps-ensure-beneficiary': { ...consumer, timeoutSeconds: 80 },
  'steps-wait-cooldown': consumer,
  'steps-transfer': consumer,
  'steps-reconcile': consumer,
  // Finds deposits past their check time on the sparse index and sends their step again.
  'steps-sweeper': { timeoutSeconds: sweeper.timeoutSeconds, memoryMb: 512 },
  // Delivers to the webhook, signed; retries by hiding the message again (part of consuming it).
  'notifier-deliver': { ...consumer, secrets: ['webhookSigning'] },
  // Relays each version's event from the table's stream to the notify queue, or sets it aside in its
  // DLQ; reading the stream is granted with its event source mapping, on that stream only.
  'notifier-outbox': { timeoutSeconds: 30, memoryMb: 256 },
  'notifier-relay-again': { timeoutSeconds: 30, memoryMb: 256 },
} as const satisfies Record<ReachName, Size>;

/**
 * The sandbox's functions: the provider operations and administration load the sandbox, which reads
 * the application secret at start (`table`); health, not-found and the bank catalog load neither the
 * sandbox nor its table (`alone`).
 */
type SandboxHandler = Exclude<HandlerName, ReachName>;
const sandboxUses = {
  'sandbox-exchange-token': 'table',
  'sandbox-metadata-get': 'table',
  'sandbox-beneficiaries-get': 'table',
  'sandbox-beneficiaries-create': 'table',
  'sandbox-transfer-create': 'table',
  'sandbox-transfer-autoflow': 'table',
  'sandbox-balance-get': 'table',
  'sandbox-operation-get': 'table',
  'sandbox-operation-get-v1': 'table',
  'sandbox-v2-exchange-token': 'table',
  'sandbox-v2-metadata-get': 'table',
  'sandbox-v2-beneficiaries-get': 'table',
  'sandbox-v2-beneficiaries-create': 'table',
  'sandbox-v2-transfer-create': 'table',
  'sandbox-v2-transfer-autoflow': 'table',
  'sandbox-applications-create': 'table',
  'sandbox-users-create': 'table',
  'sandbox-users-get': 'table',
  'sandbox-faults-set': 'table',
  'sandbox-banks-list': 'alone',
  'sandbox-health': 'alone',
  'sandbox-not-found': 'alone',
} as const satisfies Record<SandboxHandler, 'table' | 'alone'>;
const sandboxActions = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'];

function depositsSettings(name: ReachName): FunctionSettings {
  const { secrets = [], ...size }: Size = depositsSizes[name];
  const grants = grantsOf(name);
  return {
    name,
    file: handlerFile(name),
    component: 'deposits',
    ...size,
    ...grants,
    secrets: [...(grants.secrets ?? []), ...secrets],
  };
}

function sandboxSettings(name: SandboxHandler): FunctionSettings {
  const tableless = sandboxUses[name] === 'alone';
  return {
    name,
    file: handlerFile(name),
    component: 'sandbox',
    timeoutSeconds: sandboxFunctionTimeoutSeconds,
    memoryMb: 256,
    sendsTo: [],
    createsSchedules: false,
    ...(tableless
      ? { secrets: [] }
      : { table: { key: 'sandbox', actions: sandboxActions }, secrets: ['sandboxApp'] }),
  };
}

/** Settings of every topology handler, by its name. */
export const functionSettings: ReadonlyMap<HandlerName, FunctionSettings> = new Map([
  ...(Object.keys(depositsSizes) as ReachName[]).map((name) => [name, depositsSettings(name)] as const),
  ...(Object.keys(sandboxUses) as SandboxHandler[]).map((name) => [name, sandboxSettings(name)] as const),
]);

export function functionsOf(component: Component): FunctionSettings[] {
  return [...functionSettings.values()].filter((settings) => settings.component === component);
}

export function settingsOf(name: HandlerName): FunctionSettings {
  const settings = functionSettings.get(name);
  if (!settings) throw new Error(`no function settings for topology handler ${name}`);
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
