/**
 * Which environment variables each deposits function gets: only those its line names (of
 * `shared/deposits/reach.ts`, by the handler's name, and its settings), so that no function holds
 * the name of a queue, key, schedule group or wallet it has no use for. Powertools' own variables
 * (`POWERTOOLS_*`) go to every function. A tuning variable (CDK context `tuning`) goes to the
 * functions that read it; one left out of `tuningReaders` fails the type check. The values are the
 * stack's (`handlerVariables`, `infra/environment.ts`: AWS's resources here, the local stack's there).
 */

import { stepQueueVariables } from '#shared/config';
import { type Reach, type ReachName, reach } from '#shared/deposits/reach';
import { outbox, queues, tables } from '#shared/topology';
import type { Tuning } from './context.ts';
import type { FunctionSettings } from './settings.ts';

/** What a function is configured for. */
type Need =
  | 'table'
  | 'settings'
  | 'provider'
  | 'wallets'
  | 'credentials'
  | 'wakes'
  | 'unschedules'
  | 'webhook'
  | 'ownerKey'
  | 'queueDepths'
  | 'approvals';

/** The variables each need names (queue URLs and ARNs come from the queues a function uses). */
const variablesOfNeed: Record<Need, readonly string[]> = {
  table: [tables.deposits.envVar],
  // The deposit settings (`shared/wiring/table.ts`) come from the tuning variables alone.
  settings: [],
  provider: ['PROVIDER_BASE_URL', 'PROVIDER_DIALECT'],
  wallets: ['WALLET_ACCOUNTS', 'DEFAULT_WALLET_ACCOUNT_ID'],
  credentials: ['CREDENTIALS_KEY_ARN'],
  wakes: ['SCHEDULE_GROUP_NAME', 'SCHEDULER_ROLE_ARN', 'SCHEDULER_DLQ_ARN'],
  unschedules: ['SCHEDULE_GROUP_NAME'],
  webhook: ['WEBHOOK_URL', 'WEBHOOK_SECRET_ARN'],
  ownerKey: ['OWNER_KEY_SECRET_ARN'],
  queueDepths: [],
  approvals: ['RESOLVE_APPROVAL_ABOVE'],
};

/** Who reads each tuning variable the deposits stacks may set (the sandbox's go to the sandbox). */
export const tuningReaders = {
  // Each provider call's timeout; and the leases and claims are held a little longer than a call.
  PROVIDER_TIMEOUT_MS: ['provider', 'settings'],
  PROVIDER_AUTOFLOW_ACTION: ['provider'],
  LONG_WAIT_SECONDS: ['settings'],
  INPUT_TTL_SECONDS: ['settings'],
  STALL_AFTER_SECONDS: ['settings'],
  MAX_RETRIES: ['settings'],
  COOL_DOWN_RETRY_SECONDS: ['settings'],
  MAX_REDRIVES: ['settings'],
  BANK_MEMORY_SECONDS: ['settings'],
  SOURCE_BANK_MEMORY_SECONDS: ['settings'],
  RECONCILE_MAX_POLLS: ['settings'],
  RECONCILE_POLL_CAP_SECONDS: ['settings'],
  WEBHOOK_TIMEOUT_MS: ['webhook'],
  WEBHOOK_RETRY_BASE_SECONDS: ['webhook'],
  // Powertools' own: every function.
  POWERTOOLS_LOG_LEVEL: [],
} as const satisfies Record<Exclude<keyof Tuning, `SANDBOX_${string}`>, readonly Need[]>;

function needsOf(settings: FunctionSettings, line: Reach | undefined): Set<Need> {
  const needs = new Set<Need>();
  const add = (need: Need, when: unknown) => {
    if (when) needs.add(need);
  };
  add('table', settings.table || settings.index);
  // Whatever writes a deposit, or moves its check time, builds the deposit settings.
  add('settings', line?.deposits === 'write' || line?.dueIndex);
  add('provider', line?.provider?.length);
  add('wallets', line?.wallets);
  add('credentials', settings.credentialsKey);
  add('wakes', settings.createsSchedules);
  add('unschedules', settings.deletesSchedules);
  add('webhook', settings.secrets.includes('webhookSigning'));
  add('ownerKey', settings.secrets.includes('ownerKey'));
  add('queueDepths', settings.readsQueueDepths);
  // The resolve alone decides whether a resolution needs a second operator.
  add('approvals', line?.approvals);
  return needs;
}

/** The names of the variables a deposits function may be given (those without a value are left out). */
export function variablesOf(settings: FunctionSettings, queueDepthsVariable: string): Set<string> {
  const line: Reach | undefined = settings.name in reach ? reach[settings.name as ReachName] : undefined;
  const needs = needsOf(settings, line);
  const names = new Set([...needs].flatMap((need) => variablesOfNeed[need]));
  if (needs.has('queueDepths')) names.add(queueDepthsVariable);
  for (const [name, readers] of Object.entries(tuningReaders)) {
    if ((readers as readonly Need[]).some((need) => needs.has(need))) names.add(name);
  }
  // The queues it sends to; the notifier's own, whose messages it hides again for a later try.
  for (const key of settings.sendsTo) names.add(queues[key].urlEnvVar);
  if (line?.deliveries === 'record') names.add(queues.notify.urlEnvVar);
  // The queues its schedules wake.
  for (const step of line?.wakes ?? []) names.add(stepQueueVariables[step].arn);
  // The outbox relay's DLQ, where it sets aside what it could not relay.
  if (settings.sendsToDlqOf?.includes(outbox.queue)) names.add(outbox.dlqUrlEnvVar);
  return names;
}

/** A function's environment: of every variable the stack has a value for, those it may be given. */
export function environmentOf(
  settings: FunctionSettings,
  values: Readonly<Record<string, string>>,
  queueDepthsVariable: string,
): Record<string, string> {
  const names = variablesOf(settings, queueDepthsVariable);
  // Powertools' own variables (service, namespace, log level, ...) are every function's.
  return Object.fromEntries(
    Object.entries(values).filter(([name]) => names.has(name) || name.startsWith('POWERTOOLS_')),
  );
}
