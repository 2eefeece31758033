/**
 * Each deposits function reaches no further than its line of `shared/deposits/reach.ts` (issue 33,
 * item 4), over the synthesized templates: its item actions on the deposits table each limited to the
 * partition-key prefix of the entities it touches (`dynamodb:LeadingKeys`), and its environment to
 * the variables its reach names. Written out here rather than derived, as stacks-reach.test.ts's grants: a
 * function that starts reaching further fails this test until someone decides it should.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { settingsOf } from '#infra/cdk/settings';
import { depositsApi, type HandlerName, operatorApi, outbox, queues, sweeper } from '#infra/topology';
import { keys } from '#shared/adapters/deposits-table-items';
import { stepQueueVariables } from '#shared/config';
import { type Reach, type ReachName, reach } from '#shared/deposits/reach';
import {
  actionsOf,
  configurations,
  environmentOf,
  functionsByHandler,
  type Statement,
  type Synthesized,
  statementsOfFunction,
  synthesize,
  text,
} from './synth.ts';

let dev: Synthesized;
let prod: Synthesized;
beforeAll(() => {
  dev = synthesize(configurations.devWithSandbox);
  // A webhook, and every tuning variable the deposits read.
  prod = synthesize({
    ...configurations.prodWithoutSandbox,
    tuning: JSON.stringify({
      PROVIDER_TIMEOUT_MS: 20000,
      PROVIDER_AUTOFLOW_ACTION: 'transfer',
      LONG_WAIT_SECONDS: 600,
      INPUT_TTL_SECONDS: 240,
      STALL_AFTER_SECONDS: 200,
      MAX_RETRIES: 8,
      MAX_REDRIVES: 8,
      BANK_MEMORY_SECONDS: 3600,
      SOURCE_BANK_MEMORY_SECONDS: 86400,
      RECONCILE_MAX_POLLS: 30,
      RECONCILE_POLL_CAP_SECONDS: 900,
      WEBHOOK_TIMEOUT_MS: 5000,
      WEBHOOK_RETRY_BASE_SECONDS: 2,
      POWERTOOLS_LOG_LEVEL: 'WARN',
      SANDBOX_ASYNC_DELAY_MS: 10,
    }),
  });
});

const route = (api: typeof depositsApi, path: string) =>
  api.routes.find((candidate) => candidate.path === path)?.handler ?? expect.fail(`no route ${path}`);
const deposits = (path: string) => route(depositsApi, `/v1/deposits/${path}`);
const sources = (path: string) => route(depositsApi, `/v1/sources/${path}`);
const operator = (path: string) => route(operatorApi, `/v1/ops/${path}`);

/** A table statement's actions (without `dynamodb:`) by the one prefix its condition allows. */
function partitionsOf(synthesized: Synthesized, handler: HandlerName): Record<string, string[]> {
  const itemActions = ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'];
  const onTable = statementsOfFunction(synthesized.templates.stateless, handler).filter(
    (statement) =>
      actionsOf([statement]).some((action) => itemActions.includes(action.replace('dynamodb:', ''))) &&
      !text(statement.Resource).includes('/index/'),
  );
  const byPrefix: Record<string, string[]> = {};
  for (const statement of onTable) {
    const condition = (statement as Statement).Condition as
      | { 'ForAllValues:StringLike'?: { 'dynamodb:LeadingKeys'?: string[] } }
      | undefined;
    const leading = condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
    expect(leading, `${handler}: a table statement without LeadingKeys`).toHaveLength(1);
    expect(Object.keys(condition ?? {}), handler).toEqual(['ForAllValues:StringLike']);
    const prefix = String(leading?.[0]).replace(/\*$/, '');
    expect(byPrefix[prefix], `${handler}: two statements for ${prefix}`).toBeUndefined();
    byPrefix[prefix] = actionsOf([statement])
      .map((action) => action.replace('dynamodb:', ''))
      .sort();
  }
  return byPrefix;
}

/** The partition-key prefix of every entity of the deposits table (`keys`). */
function entityPrefixes(): string[] {
  const prefixes = Object.values(keys).map((key) => {
    const { pk } = (key as (...args: string[]) => { pk: string })('a', 'b');
    return pk.slice(0, pk.indexOf('#') + 1);
  });
  return [...new Set(prefixes)];
}

/** The create's uniqueness records: its idempotency key, and its client reference. */
const uniqueness = { 'IDEMPOTENCY#': ['GetItem', 'PutItem'], 'CLIENTREF#': ['GetItem', 'PutItem'] };
const cancelling = {
  'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem'],
  'BENEFICIARY#': ['UpdateItem'],
  'WAKE#': ['DeleteItem', 'GetItem'],
  'LEASE#': ['GetItem', 'UpdateItem'],
};
const creating = {
  'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem'],
  ...uniqueness,
  'BENEFICIARY#': ['GetItem', 'UpdateItem'],
  'BANK#': ['GetItem'],
  'WAKE#': ['DeleteItem', 'GetItem'],
  'LEASE#': ['GetItem', 'UpdateItem'],
};

/** Each function's item actions on the deposits table, by the partition-key prefix they are limited to. */
const expectedPartitions: Record<string, Record<string, string[]>> = {
  [deposits('create')]: creating,
  [sources('create')]: creating,
  [deposits('get')]: { 'DEPOSIT#': ['GetItem'] },
  [sources('get')]: { 'DEPOSIT#': ['GetItem'] },
  [deposits('list')]: { 'DEPOSIT#': ['BatchGetItem'] },
  [sources('list')]: { 'DEPOSIT#': ['BatchGetItem'] },
  [deposits('cancel')]: cancelling,
  [sources('cancel')]: cancelling,
  [operator('deposits/cancel')]: cancelling,
  [operator('deposits/get')]: { 'DEPOSIT#': ['GetItem'] },
  [operator('deposits/list')]: { 'DEPOSIT#': ['BatchGetItem'] },
  [operator('deposits/redrive')]: { 'DEPOSIT#': ['GetItem'] },
  [operator('deposits/resolve')]: { 'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem'] },
  // The steps that open credentials read them with the deposit: a Query of its partition, no other.
  [queues.resolveBank.handler]: {
    'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem', 'Query'],
    'BENEFICIARY#': ['UpdateItem'],
    'BANK#': ['GetItem', 'PutItem'],
    'WAKE#': ['DeleteItem', 'GetItem'],
    'LEASE#': ['GetItem', 'UpdateItem'],
  },
  [queues.ensureBeneficiary.handler]: {
    'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem', 'Query'],
    'BENEFICIARY#': ['DeleteItem', 'GetItem', 'PutItem', 'UpdateItem'],
    'WAKE#': ['DeleteItem', 'GetItem', 'UpdateItem'],
    'LEASE#': ['GetItem', 'UpdateItem'],
  },
  [queues.waitCooldown.handler]: {
    'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem'],
    'BENEFICIARY#': ['UpdateItem'],
    'WAKE#': ['DeleteItem', 'GetItem', 'PutItem', 'UpdateItem'],
    'LEASE#': ['GetItem', 'UpdateItem'],
  },
  [queues.transfer.handler]: {
    'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem', 'Query'],
    'BENEFICIARY#': ['DeleteItem', 'UpdateItem'],
    'BANK#': ['DeleteItem'],
    'WAKE#': ['DeleteItem', 'GetItem'],
    'LEASE#': ['GetItem', 'UpdateItem'],
  },
  [queues.reconcile.handler]: {
    'DEPOSIT#': ['DeleteItem', 'GetItem', 'PutItem', 'Query'],
    'BENEFICIARY#': ['DeleteItem', 'UpdateItem'],
    'BANK#': ['DeleteItem'],
    'WAKE#': ['DeleteItem', 'GetItem'],
    'LEASE#': ['GetItem', 'UpdateItem'],
  },
  // Moves the check time of what it re-drives.
  [sweeper.handler]: { 'DEPOSIT#': ['UpdateItem'] },
  // Records each try of a webhook delivery, in the records' own partitions: no deposit.
  [queues.notify.handler]: { 'DELIVERY#': ['UpdateItem'] },
  [operator('deposits/deliveries')]: { 'DEPOSIT#': ['GetItem'], 'DELIVERY#': ['Query'] },
  [operator('deposits/resend')]: { 'DELIVERY#': ['Query', 'UpdateItem'] },
  [operator('deposits/stats')]: { 'DEPOSIT#': ['BatchGetItem'] },
};

describe('table grants', () => {
  it('are limited, entity by entity, to the partition-key prefix of the items each function touches', () => {
    for (const [handler, expected] of Object.entries(expectedPartitions)) {
      expect(partitionsOf(dev, handler as HandlerName), handler).toEqual(expected);
    }
  });

  it('give every function, a new one too, a statement per prefix of an entity, the settings’ actions in all', () => {
    const prefixes = entityPrefixes();
    for (const [handler] of functionsByHandler(dev.templates.stateless)) {
      const partitions = partitionsOf(dev, handler);
      for (const prefix of Object.keys(partitions)) expect(prefixes, handler).toContain(prefix);
      const all = [...new Set(Object.values(partitions).flat())].sort();
      expect(
        all.map((action) => `dynamodb:${action}`),
        handler,
      ).toEqual([...(settingsOf(handler).table?.actions ?? [])].sort());
    }
  });

  it('reach every entity of the deposits table through some function, by its own prefix', () => {
    const granted = new Set(
      Object.values(expectedPartitions).flatMap((partitions) => Object.keys(partitions)),
    );
    expect([...granted].sort()).toEqual(entityPrefixes().sort());
  });

  it('leave the indexes, which hold deposit items only, to a Query on the index alone', () => {
    for (const [handler] of functionsByHandler(dev.templates.stateless)) {
      const onIndex = statementsOfFunction(dev.templates.stateless, handler).filter((statement) =>
        text(statement.Resource).includes('/index/'),
      );
      expect(actionsOf(onIndex), handler).toEqual(settingsOf(handler).index ? ['dynamodb:Query'] : []);
    }
  });
});

const powertools = [
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'POWERTOOLS_LOG_LEVEL',
  'POWERTOOLS_LOGGER_LOG_EVENT',
  'NODE_OPTIONS',
];
const table = ['DEPOSITS_TABLE_NAME'];
/** What a function that writes deposits reads to build its settings (`shared/wiring/table.ts`). */
const settingsTuning = [
  'PROVIDER_TIMEOUT_MS',
  'LONG_WAIT_SECONDS',
  'INPUT_TTL_SECONDS',
  'STALL_AFTER_SECONDS',
  'MAX_RETRIES',
  'MAX_REDRIVES',
  'BANK_MEMORY_SECONDS',
  'SOURCE_BANK_MEMORY_SECONDS',
  'RECONCILE_MAX_POLLS',
  'RECONCILE_POLL_CAP_SECONDS',
];
const provider = ['PROVIDER_BASE_URL', 'PROVIDER_DIALECT', 'PROVIDER_TIMEOUT_MS', 'PROVIDER_AUTOFLOW_ACTION'];
const wallets = ['WALLET_ACCOUNTS', 'DEFAULT_WALLET_ACCOUNT_ID'];
const wakes = ['SCHEDULE_GROUP_NAME', 'SCHEDULER_ROLE_ARN', 'SCHEDULER_DLQ_ARN'];
const unschedules = ['SCHEDULE_GROUP_NAME'];
const url = (...names: string[]) => names.map((name) => `${name}_QUEUE_URL`);
const arn = (...names: string[]) => names.map((name) => `${name}_QUEUE_ARN`);

/** Each deposits function's variables beside Powertools', in prod (a webhook, every tuning variable). */
const expectedEnvironment: Record<string, string[]> = {
  [deposits('create')]: [
    ...table,
    ...settingsTuning,
    ...url('RESOLVE_BANK', 'ENSURE_BENEFICIARY', 'TRANSFER'),
    ...wallets,
    'CREDENTIALS_KEY_ARN',
    'OWNER_KEY_SECRET_ARN',
  ],
  [deposits('get')]: [...table, 'OWNER_KEY_SECRET_ARN'],
  [deposits('list')]: [...table, 'OWNER_KEY_SECRET_ARN'],
  [deposits('cancel')]: [
    ...table,
    ...settingsTuning,
    ...url('RESOLVE_BANK', 'ENSURE_BENEFICIARY', 'TRANSFER'),
    ...unschedules,
    'OWNER_KEY_SECRET_ARN',
  ],
  [route(depositsApi, '/health')]: [],
  [depositsApi.defaultHandler]: [],
  [operator('deposits/list')]: table,
  [operator('deposits/get')]: table,
  // The approval thresholds: the resolve alone decides whether a `done` needs a second operator.
  [operator('deposits/resolve')]: [...table, ...settingsTuning, 'RESOLVE_APPROVAL_ABOVE'],
  [operator('deposits/cancel')]: [
    ...table,
    ...settingsTuning,
    ...url('RESOLVE_BANK', 'ENSURE_BENEFICIARY', 'TRANSFER'),
    ...unschedules,
  ],
  [operator('deposits/redrive')]: [
    ...table,
    ...url('RESOLVE_BANK', 'ENSURE_BENEFICIARY', 'WAIT_COOLDOWN', 'TRANSFER', 'RECONCILE'),
  ],
  [operator('queues')]: ['OPERATOR_QUEUES'],
  [operator('deposits/deliveries')]: table,
  [operator('deposits/resend')]: [...table, ...url('NOTIFY')],
  [operator('deposits/stats')]: table,
  [operatorApi.defaultHandler]: [],
  [queues.resolveBank.handler]: [
    ...table,
    ...settingsTuning,
    ...url('RESOLVE_BANK', 'ENSURE_BENEFICIARY', 'TRANSFER'),
    ...arn('RESOLVE_BANK'),
    ...wakes,
    ...wallets,
    ...provider,
    'CREDENTIALS_KEY_ARN',
  ],
  [queues.ensureBeneficiary.handler]: [
    ...table,
    ...settingsTuning,
    ...url('RESOLVE_BANK', 'ENSURE_BENEFICIARY', 'WAIT_COOLDOWN', 'TRANSFER'),
    ...arn('ENSURE_BENEFICIARY'),
    ...wakes,
    ...wallets,
    ...provider,
    'CREDENTIALS_KEY_ARN',
  ],
  // No provider call, no credentials, no wallet: it arms wake-ups.
  [queues.waitCooldown.handler]: [
    ...table,
    ...settingsTuning,
    ...url('RESOLVE_BANK', 'TRANSFER', 'ENSURE_BENEFICIARY'),
    ...arn('TRANSFER', 'ENSURE_BENEFICIARY'),
    ...wakes,
  ],
  [queues.transfer.handler]: [
    ...table,
    ...settingsTuning,
    ...url('RESOLVE_BANK', 'TRANSFER', 'WAIT_COOLDOWN', 'RECONCILE', 'ENSURE_BENEFICIARY'),
    ...arn('TRANSFER'),
    ...wakes,
    ...wallets,
    ...provider,
    'CREDENTIALS_KEY_ARN',
  ],
  [queues.reconcile.handler]: [
    ...table,
    ...settingsTuning,
    ...url('RESOLVE_BANK', 'RECONCILE', 'TRANSFER', 'WAIT_COOLDOWN', 'ENSURE_BENEFICIARY'),
    ...arn('TRANSFER'),
    ...wakes,
    ...provider,
    'CREDENTIALS_KEY_ARN',
  ],
  [sweeper.handler]: [
    ...table,
    ...settingsTuning,
    ...url('RESOLVE_BANK', 'ENSURE_BENEFICIARY', 'WAIT_COOLDOWN', 'TRANSFER', 'RECONCILE'),
  ],
  // The notifier hides its own messages again for a later try: its queue's URL; and records each try.
  [queues.notify.handler]: [
    ...table,
    ...url('NOTIFY'),
    'WEBHOOK_URL',
    'WEBHOOK_SECRET_ARN',
    'WEBHOOK_TIMEOUT_MS',
    'WEBHOOK_RETRY_BASE_SECONDS',
  ],
  [queues.outboxRelay.handler]: url('NOTIFY'),
  [outbox.handler]: [...url('NOTIFY'), 'OUTBOX_RELAY_DLQ_URL'],
};
// The sources routes are the deposits routes' twins.
for (const name of ['create', 'get', 'list', 'cancel']) {
  expectedEnvironment[sources(name)] = expectedEnvironment[deposits(name)] ?? [];
}

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

describe('each function’s environment', () => {
  it('holds only what its reach names, and Powertools’ own', () => {
    const functions = functionsByHandler(prod.templates.stateless);
    for (const [handler, expected] of Object.entries(expectedEnvironment)) {
      const { resource } = functions.get(handler as HandlerName) ?? expect.fail(`no function ${handler}`);
      expect(sorted(Object.keys(environmentOf(resource))), handler).toEqual(
        sorted([...powertools, ...expected]),
      );
    }
    // The deployment's log level, a tuning variable, reaches every function.
    for (const { resource } of functions.values()) {
      expect(environmentOf(resource).POWERTOOLS_LOG_LEVEL).toBe('WARN');
    }
  });

  it('follows every function’s grants, a new one’s too: no queue, key, group, wallet or provider it has no use for', () => {
    for (const [handler, { resource }] of functionsByHandler(prod.templates.stateless)) {
      const settings = settingsOf(handler);
      const line: Reach | undefined = handler in reach ? reach[handler as ReachName] : undefined;
      const names = new Set(Object.keys(environmentOf(resource)));
      const has = (name: string) => names.has(name);
      expect(has('DEPOSITS_TABLE_NAME'), handler).toBe(Boolean(settings.table || settings.index));
      expect(has('CREDENTIALS_KEY_ARN'), handler).toBe(Boolean(settings.credentialsKey));
      expect(has('WALLET_ACCOUNTS'), handler).toBe(Boolean(line?.wallets));
      expect(has('PROVIDER_BASE_URL'), handler).toBe(Boolean(line?.provider?.length));
      expect(has('SCHEDULER_DLQ_ARN'), handler).toBe(settings.createsSchedules);
      expect(has('SCHEDULE_GROUP_NAME'), handler).toBe(
        Boolean(settings.createsSchedules || settings.deletesSchedules),
      );
      expect(has('OWNER_KEY_SECRET_ARN'), handler).toBe(settings.secrets.includes('ownerKey'));
      expect(has('OPERATOR_QUEUES'), handler).toBe(Boolean(settings.readsQueueDepths));
      expect(has('RESOLVE_APPROVAL_ABOVE'), handler).toBe(Boolean(line?.approvals));
      const urls = [...names].filter((name) => name.endsWith('_QUEUE_URL'));
      const sendsTo = settings.sendsTo.map((key) => queues[key].urlEnvVar);
      const own = line?.deliveries === 'record' ? [queues.notify.urlEnvVar] : [];
      expect(sorted(urls), handler).toEqual(sorted([...sendsTo, ...own]));
      const arns = [...names].filter((name) => name.endsWith('_QUEUE_ARN'));
      expect(sorted(arns), handler).toEqual(
        sorted((line?.wakes ?? []).map((step) => stepQueueVariables[step].arn)),
      );
    }
  });

  it('leaves out what is not configured: without a webhook, no notify queue and no webhook; no tuning', () => {
    const functions = functionsByHandler(dev.templates.stateless);
    const tuned = new Set([
      ...settingsTuning,
      ...provider,
      'WEBHOOK_TIMEOUT_MS',
      'WEBHOOK_RETRY_BASE_SECONDS',
    ]);
    const given = new Set(['PROVIDER_BASE_URL', 'PROVIDER_DIALECT']);
    for (const [handler, names] of Object.entries(expectedEnvironment)) {
      const { resource } = functions.get(handler as HandlerName) ?? expect.fail(`no function ${handler}`);
      const expected = names.filter(
        (name) =>
          !name.startsWith('WEBHOOK_') &&
          name !== 'NOTIFY_QUEUE_URL' &&
          (!tuned.has(name) || given.has(name)),
      );
      expect(sorted(Object.keys(environmentOf(resource))), handler).toEqual(
        sorted([...powertools, ...expected]),
      );
    }
  });

  it('holds no local endpoint, key or secret value', () => {
    for (const synthesized of [dev, prod]) {
      for (const [handler, { resource }] of functionsByHandler(synthesized.templates.stateless)) {
        const variables = environmentOf(resource);
        for (const local of [
          'DYNAMODB_ENDPOINT',
          'SQS_ENDPOINT',
          'SCHEDULER_ENDPOINT',
          'LOCAL_ENCRYPTION_KEY',
        ]) {
          expect(variables[local], handler).toBeUndefined();
        }
        for (const secret of ['OWNER_KEY', 'WEBHOOK_SECRET', 'SANDBOX_APP_SECRET']) {
          expect(variables[secret], handler).toBeUndefined();
        }
        expect(text(variables), handler).not.toMatch(/SANDBOX_|resolve:secretsmanager|SecretString/);
      }
    }
  });
});
