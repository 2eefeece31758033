/**
 * Each deposits function's environment holds only the variables its line of
 * `shared/deposits/reach.ts` names, and Powertools' own, over the synthesized templates: in prod with
 * a webhook and every tuning variable, in dev without either; never a local endpoint, key or secret
 * value. Written out here rather than derived, as reach-grants.test.ts's partitions: a function that
 * starts reading more fails this test until someone decides it should.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { settingsOf } from '#infra/cdk/settings';
import { stepQueueVariables } from '#shared/config';
import { type Reach, type ReachName, reach } from '#shared/deposits/reach';
import { depositsApi, type HandlerName, operatorApi, outbox, queues, sweeper } from '#shared/topology';
import { deposits, operator, route, sources } from './reach-world.ts';
import {
  configurations,
  environmentOf,
  functionsByHandler,
  powertools,
  type Synthesized,
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
      COOL_DOWN_RETRY_SECONDS: 60,
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

const table = ['DEPOSITS_TABLE_NAME'];
/** What a function that writes deposits reads to build its settings (`shared/wiring/table.ts`). */
const settingsTuning = [
  'PROVIDER_TIMEOUT_MS',
  'LONG_WAIT_SECONDS',
  'INPUT_TTL_SECONDS',
  'STALL_AFTER_SECONDS',
  'MAX_RETRIES',
  'COOL_DOWN_RETRY_SECONDS',
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
