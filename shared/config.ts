/**
 * Configuration, read once from the environment when a module first asks for it. A missing or
 * malformed variable fails at start, with the variable's name.
 */
import * as z from 'zod';
import { MinorAmountsByCurrency } from './money.ts';
import { dialectNames } from './provider/interface/dialects.ts';
import { faultWaitBudgetMs, inputLimits } from './provider/interface/limits.ts';

const number = (fallback: number) => z.coerce.number().int().nonnegative().default(fallback);

const SandboxEnv = z.object({
  SANDBOX_TABLE_NAME: z.string().min(1),
  /** The sandbox application's secret. The local default is documented in docs/sandbox.md. */
  SANDBOX_APP_SECRET: z.string().min(8).default('sandbox-local-app-secret'),
  /** In AWS: the Secrets Manager secret holding it, read once at cold start (wins over the value). */
  SANDBOX_APP_SECRET_ARN: z.string().startsWith('arn:').optional(),
  SANDBOX_ASYNC_DELAY_MS: number(1_000),
  SANDBOX_INPUT_TTL_SECONDS: number(300),
  SANDBOX_ACCESS_CODE_TTL_SECONDS: number(600),
  /**
   * Longest a request is held while its bank takes its time, past which it answers `initialized`
   * (within the fault budget, 25 s): how long the provider holds a call that sends no `sync`.
   */
  SANDBOX_HOLD_MS: number(faultWaitBudgetMs).pipe(z.number().max(faultWaitBudgetMs)),
  /** How long a `timeout` fault hangs before answering 504 (within the fault budget, 25 s). */
  SANDBOX_TIMEOUT_MS: number(faultWaitBudgetMs).pipe(z.number().max(faultWaitBudgetMs)),
});

const WalletAccountConfig = z.object({
  id: z.string().min(1),
  currency: z.string().length(3),
  name: z.string().min(1),
  iban: z.string().min(1),
  /** The account's number at its bank: how the wallet's beneficiary is recognised in a bank's list. */
  accountNumber: z.string().trim().min(1),
  swiftCode: z.string().min(8),
  bankName: z.string().default(''),
  /** Full country name (beneficiary creation) and two-letter code (inline receiver). */
  country: z.string().min(1),
  countryCode: z.string().length(2),
  branchName: z.string().default(''),
  branchAddress: z.string().default(''),
  address: z.object({ line1: z.string(), line2: z.string(), line3: z.string() }).optional(),
  /**
   * The largest deposit this account takes, in its currency (major units, like a request's
   * `amount`); 100,000 when absent. Larger ones are refused AMOUNT_ABOVE_MAXIMUM.
   */
  maxDeposit: z.number().positive().optional(),
});
export type WalletAccountConfig = z.infer<typeof WalletAccountConfig>;

const json = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'must be JSON' });
        return z.NEVER;
      }
    })
    .pipe(schema);

/** A queue URL (fauxqs names hosts such as sqs.us-east-1.localhost, which z.url() refuses). */
const queueUrl = z.string().regex(/^https?:\/\/\S+$/, 'must be an http(s) URL');

/** The deposits table: every orchestrator handler but the notifier. */
const DepositsTableEnv = z.object({ DEPOSITS_TABLE_NAME: z.string().min(1) });

/**
 * Tries of a step message before its queue moves it to the DLQ; on the last one, a step that still
 * throws fails its deposit instead (the topology gives the step queues this receive count).
 */
export const stepMessageMaxTries = 5;

/** The environment variable of each step queue's URL, and of the ARN of those a schedule targets. */
export const stepQueueVariables = {
  'resolve-bank': { url: 'RESOLVE_BANK_QUEUE_URL', arn: 'RESOLVE_BANK_QUEUE_ARN' },
  'ensure-beneficiary': { url: 'ENSURE_BENEFICIARY_QUEUE_URL', arn: 'ENSURE_BENEFICIARY_QUEUE_ARN' },
  'wait-cooldown': { url: 'WAIT_COOLDOWN_QUEUE_URL', arn: 'WAIT_COOLDOWN_QUEUE_ARN' },
  transfer: { url: 'TRANSFER_QUEUE_URL', arn: 'TRANSFER_QUEUE_ARN' },
  reconcile: { url: 'RECONCILE_QUEUE_URL', arn: 'RECONCILE_QUEUE_ARN' },
} as const;
export type QueueStep = keyof typeof stepQueueVariables;

/**
 * A URL secrets travel to (the provider's, the webhook receiver's): https, or http to this machine
 * only (the local stack); anything else is refused at start, naming the variable.
 */
const secureUrl = z.url().refine(
  (value) => {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && loopback.has(url.hostname));
  },
  { message: 'must be https:// (http:// only to 127.0.0.1, ::1 or localhost, the local stack)' },
);
const loopback = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The schedule group: where wake-ups are made, and deleted (a cancel needs no more). */
const ScheduleGroupEnv = z.object({ SCHEDULE_GROUP_NAME: z.string().min(1) });

/** What making a wake-up takes beside the group: the role it sends with, and its DLQ. */
const SchedulerEnv = z.object({
  SCHEDULER_ROLE_ARN: z.string().startsWith('arn:'),
  SCHEDULER_DLQ_ARN: z.string().startsWith('arn:').optional(),
});

const ProviderEnv = z.object({
  PROVIDER_BASE_URL: secureUrl.default('http://127.0.0.1:3001'),
  PROVIDER_TIMEOUT_MS: number(10_000),
  /** How the provider is spoken to: the spec's dialect, or the real provider's v2 (`interface/dialects.ts`). */
  PROVIDER_DIALECT: z.enum(dialectNames).default('spec'),
  /** The `action` of the inline transfer: the provider's name of the payment flow (no values in the spec). */
  PROVIDER_AUTOFLOW_ACTION: z.string().trim().min(1).max(inputLimits.action).default('transfer'),
});

const WalletsEnv = z.object({
  WALLET_ACCOUNTS: json(z.array(WalletAccountConfig).min(1)),
  DEFAULT_WALLET_ACCOUNT_ID: z.string().min(1),
});

const TuningEnv = z.object({
  /** Waits longer than this use a schedule; shorter ones a delayed message (SQS allows 900 s). */
  LONG_WAIT_SECONDS: number(900).pipe(z.number().max(900)),
  INPUT_TTL_SECONDS: number(240),
  STALL_AFTER_SECONDS: number(180),
  MAX_RETRIES: number(8),
  /** The shortest wait after a transfer refused for a cool-down (a minute), whatever instant the bank names. */
  COOL_DOWN_RETRY_SECONDS: number(60),
  /** Re-drives by the sweeper of a deposit that does not move, before it fails as STEP_FAILED. */
  MAX_REDRIVES: number(8),
  /** How long a connection's bank metadata is remembered; 0 asks the bank on every deposit. */
  BANK_MEMORY_SECONDS: number(3_600),
  // What a payment source learnt of the bank serves the deposits it prepares: 30 days.
  SOURCE_BANK_MEMORY_SECONDS: number(30 * 86_400),
  /** Reads of a transfer operation (reconcile) before its outcome is given up as unknown: some five hours of them. */
  RECONCILE_MAX_POLLS: number(30),
  /** The longest delay between two reads of a transfer operation (SQS delays at most 900 s). */
  RECONCILE_POLL_CAP_SECONDS: number(900).pipe(z.number().min(1).max(900)),
});

const VaultEnv = z.object({
  CREDENTIALS_KEY_ARN: z.string().startsWith('arn:').optional(),
  LOCAL_ENCRYPTION_KEY: z.string().optional(),
});

/** The owner key's least length: an HMAC-SHA256 key of 256 bits or more. */
const ownerKeyMinBytes = 32;
const ownerKeyForm = `base64 of at least ${ownerKeyMinBytes} random bytes (openssl rand -base64 32)`;
/** An owner key as written (base64, or base64url), as the bytes it stands for. */
const OwnerKeyValue = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9+/_-]+={0,2}$/, `must be ${ownerKeyForm}`)
  .transform((text) => Buffer.from(text, 'base64'))
  .refine((key) => key.length >= ownerKeyMinBytes, `must be ${ownerKeyForm}`);

/**
 * The owner key: what callers' access tokens and user secrets are keyed by (HMAC-SHA256), so that
 * their deposits, leases and claims are (`shared/wiring/owner-digests.ts`). Locally OWNER_KEY (the
 * local stack makes one per start when unset); in AWS the Secrets Manager secret holding it, read
 * once at cold start (wins over the value). Only the routes that take a caller's token read it.
 */
const OwnerKeyEnv = z
  .object({
    OWNER_KEY: OwnerKeyValue.optional(),
    OWNER_KEY_SECRET_ARN: z.string().startsWith('arn:').optional(),
  })
  .superRefine((env, context) => {
    if (env.OWNER_KEY === undefined && env.OWNER_KEY_SECRET_ARN === undefined)
      context.addIssue({
        code: 'custom',
        path: ['OWNER_KEY'],
        message: `must be set to ${ownerKeyForm}, or OWNER_KEY_SECRET_ARN to the secret holding it`,
      });
  });

/** The owner key a secret holds, checked as OWNER_KEY is; an error names `variable` (the secret's ARN). */
export function ownerKeyFrom(value: unknown, variable: string): Buffer {
  const parsed = OwnerKeyValue.safeParse(value);
  if (!parsed.success)
    throw new Error(`Invalid configuration: ${variable}: the secret must hold ${ownerKeyForm}`);
  return parsed.data;
}

const NotifyEnv = z.object({ NOTIFY_QUEUE_URL: queueUrl.optional() });

/** The outbox relay's DLQ, where it sets aside whole a version whose event it could not relay (the relay only). */
const OutboxEnv = z.object({ OUTBOX_RELAY_DLQ_URL: queueUrl });

/**
 * The queues the operator API watches (every queue of the topology and its DLQ, set from the
 * topology by the local stack and the CDK stack): `[{ name, url, dlqName, dlqUrl }]`.
 */
const OperatorEnv = z.object({
  OPERATOR_QUEUES: json(
    z
      .array(
        z.object({ name: z.string().min(1), url: queueUrl, dlqName: z.string().min(1), dlqUrl: queueUrl }),
      )
      .min(1),
  ),
});

/**
 * Per currency, the largest amount (minor units) one operator may resolve `done` alone (JSON, such as
 * `{"AED":100000,"KWD":100000}`); a currency it does not name has none (`shared/operator/approval.ts`).
 */
const ResolveEnv = z.object({ RESOLVE_APPROVAL_ABOVE: json(MinorAmountsByCurrency).default({}) });

const WebhookEnv = z.object({
  WEBHOOK_URL: secureUrl.optional(),
  /** Standard Webhooks secret (`whsec_...`), locally. */
  WEBHOOK_SECRET: z.string().min(1).optional(),
  /** The secret before it, signed with too while a rotation overlaps (`webhook-signing-secrets.ts`). */
  WEBHOOK_PREVIOUS_SECRET: z.string().min(1).optional(),
  /** In AWS: the Secrets Manager secret holding it (and, while it has one, its previous version), read once at cold start. */
  WEBHOOK_SECRET_ARN: z.string().startsWith('arn:').optional(),
  WEBHOOK_TIMEOUT_MS: number(5_000),
  /** First retry delay; each further one doubles, up to 15 minutes. */
  WEBHOOK_RETRY_BASE_SECONDS: number(2),
});

/** The names the metrics write under (Powertools' own variables). */
const ObservabilityEnv = z.object({
  POWERTOOLS_SERVICE_NAME: z.string().min(1).optional(),
  POWERTOOLS_METRICS_NAMESPACE: z.string().min(1).default('BankDataAndPayments'),
});

/** Local endpoints of the AWS services (DynamoDB Local, fauxqs, the local scheduler); unset in AWS. */
const AwsEnv = z.object({
  DYNAMODB_ENDPOINT: z.url().optional(),
  SQS_ENDPOINT: z.url().optional(),
  SCHEDULER_ENDPOINT: z.url().optional(),
});

function read<T extends z.ZodType>(schema: T): z.infer<T> {
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}

const cache = new Map<z.ZodType, unknown>();
/** Every group a handler may read: what `configVariables` lists. */
const groups: z.ZodObject[] = [];

/** Reads one group of variables the first time it is asked for; later calls answer the same. */
function once<T extends z.ZodObject>(schema: T): () => z.infer<T> {
  groups.push(schema);
  return () => {
    if (!cache.has(schema)) cache.set(schema, read(schema));
    return cache.get(schema) as z.infer<T>;
  };
}

export const sandboxConfig = once(SandboxEnv);
export const depositsTableConfig = once(DepositsTableEnv);
export const scheduleGroupConfig = once(ScheduleGroupEnv);
export const schedulerConfig = once(SchedulerEnv);
export const providerConfig = once(ProviderEnv);
export const walletsConfig = once(WalletsEnv);
export const tuningConfig = once(TuningEnv);
export const vaultConfig = once(VaultEnv);
export const ownerKeyConfig = once(OwnerKeyEnv);
export const notifyConfig = once(NotifyEnv);
export const outboxConfig = once(OutboxEnv);
export const operatorConfig = once(OperatorEnv);
export const resolveConfig = once(ResolveEnv);
export const webhookConfig = once(WebhookEnv);
export const awsConfig = once(AwsEnv);
export const observabilityConfig = once(ObservabilityEnv);

/** The URLs of these step queues (a handler reads only those it sends to); a missing one fails at start. */
export function stepQueueUrls<S extends QueueStep>(steps: readonly S[]): Record<S, string> {
  return variables(steps, 'url', queueUrl);
}

/** The ARNs of these step queues, which the schedules target. */
export function stepQueueArns<S extends QueueStep>(steps: readonly S[]): Record<S, string> {
  return variables(steps, 'arn', z.string().startsWith('arn:'));
}

function variables<S extends QueueStep>(steps: readonly S[], kind: 'url' | 'arn', schema: z.ZodType<string>) {
  const shape = Object.fromEntries(steps.map((step) => [stepQueueVariables[step][kind], schema]));
  const values = read(z.object(shape)) as Record<string, string>;
  return Object.fromEntries(steps.map((step) => [step, values[stepQueueVariables[step][kind]]])) as Record<
    S,
    string
  >;
}

/** Every variable the handlers read, with its default where it has one: docs/deploying.md's table. */
export function configVariables(): { name: string; fallback?: unknown }[] {
  const fromSchemas = groups.flatMap((group) =>
    Object.entries(group.shape as Record<string, z.ZodType>).map(([name, schema]) => {
      const fallback = schema.safeParse(undefined);
      return fallback.success && fallback.data !== undefined ? { name, fallback: fallback.data } : { name };
    }),
  );
  const queues = Object.values(stepQueueVariables).flatMap(({ url, arn }) => [{ name: url }, { name: arn }]);
  return [...fromSchemas, ...queues];
}
