/**
 * Configuration, read once from the environment when a module first asks for it. A missing or
 * malformed variable fails at start, with the variable's name.
 */
import { z } from 'zod';

const number = (fallback: number) => z.coerce.number().int().nonnegative().default(fallback);

const SandboxEnv = z.object({
  SANDBOX_TABLE_NAME: z.string().min(1),
  /** The sandbox application's secret. The local default is documented in the README. */
  SANDBOX_APP_SECRET: z.string().min(8).default('sandbox-local-app-secret'),
  /** In AWS: the Secrets Manager secret holding it, read once at cold start (wins over the value). */
  SANDBOX_APP_SECRET_ARN: z.string().startsWith('arn:').optional(),
  SANDBOX_ASYNC_DELAY_MS: number(1_000),
  SANDBOX_INPUT_TTL_SECONDS: number(300),
  SANDBOX_ACCESS_CODE_TTL_SECONDS: number(600),
  /** How long a `timeout` fault hangs before answering 504. */
  SANDBOX_TIMEOUT_MS: number(29_000),
});

const WalletAccountConfig = z.object({
  id: z.string().min(1),
  currency: z.string().length(3),
  name: z.string().min(1),
  iban: z.string().min(1),
  accountNumber: z.string().default(''),
  swiftCode: z.string().min(8),
  bankName: z.string().default(''),
  /** Full country name (beneficiary creation) and two-letter code (inline receiver). */
  country: z.string().min(1),
  countryCode: z.string().length(2),
  branchName: z.string().default(''),
  branchAddress: z.string().default(''),
  address: z.object({ line1: z.string(), line2: z.string(), line3: z.string() }).optional(),
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

const DepositsEnv = z.object({
  DEPOSITS_TABLE_NAME: z.string().min(1),
  RESOLVE_BANK_QUEUE_URL: queueUrl,
  ENSURE_BENEFICIARY_QUEUE_URL: queueUrl,
  WAIT_COOLDOWN_QUEUE_URL: queueUrl,
  TRANSFER_QUEUE_URL: queueUrl,
  TRANSFER_QUEUE_ARN: z.string().startsWith('arn:'),
  NOTIFY_QUEUE_URL: queueUrl.optional(),
  SCHEDULE_GROUP_NAME: z.string().min(1),
  SCHEDULER_ROLE_ARN: z.string().startsWith('arn:'),
  SCHEDULER_DLQ_ARN: z.string().startsWith('arn:').optional(),
  /** Set locally to the local EventBridge Scheduler endpoint. */
  SCHEDULER_ENDPOINT: z.url().optional(),
  PROVIDER_BASE_URL: z.url().default('http://127.0.0.1:3001'),
  PROVIDER_TIMEOUT_MS: number(10_000),
  WALLET_ACCOUNTS: json(z.array(WalletAccountConfig).min(1)),
  DEFAULT_WALLET_ACCOUNT_ID: z.string().min(1),
  /** Waits longer than this use a schedule; shorter ones a delayed message (SQS allows 900 s). */
  LONG_WAIT_SECONDS: number(900).pipe(z.number().max(900)),
  INPUT_TTL_SECONDS: number(240),
  STALL_AFTER_SECONDS: number(120),
  MAX_RETRIES: number(8),
  CREDENTIALS_KEY_ARN: z.string().startsWith('arn:').optional(),
  LOCAL_ENCRYPTION_KEY: z.string().optional(),
});

const WebhookEnv = z.object({
  WEBHOOK_URL: z.url().optional(),
  /** Standard Webhooks secret (`whsec_...`), locally. */
  WEBHOOK_SECRET: z.string().min(1).optional(),
  /** In AWS: the Secrets Manager secret holding it, read once at cold start. */
  WEBHOOK_SECRET_ARN: z.string().startsWith('arn:').optional(),
  WEBHOOK_TIMEOUT_MS: number(5_000),
  /** First retry delay; each further one doubles, up to 15 minutes. */
  WEBHOOK_RETRY_BASE_SECONDS: number(2),
});

const AwsEnv = z.object({
  /** Set locally to DynamoDB Local's URL; unset in AWS. */
  DYNAMODB_ENDPOINT: z.url().optional(),
});

function read<T extends z.ZodType>(schema: T): z.infer<T> {
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}

let sandbox: z.infer<typeof SandboxEnv> | undefined;
let deposits: z.infer<typeof DepositsEnv> | undefined;
let webhook: z.infer<typeof WebhookEnv> | undefined;

export function depositsConfig() {
  deposits ??= read(DepositsEnv);
  return deposits;
}

export function webhookConfig() {
  webhook ??= read(WebhookEnv);
  return webhook;
}

let aws: z.infer<typeof AwsEnv> | undefined;

export function sandboxConfig() {
  sandbox ??= read(SandboxEnv);
  return sandbox;
}

export function awsConfig() {
  aws ??= read(AwsEnv);
  return aws;
}
