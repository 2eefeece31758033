/**
 * What a deployment may say in CDK context (`-c key=value` or `cdk.json`), as a schema: each key,
 * its type, its default and its bounds. `config.ts` reads the context through it and turns it into
 * the deployment's configuration.
 *
 *   stage                    dev (default) | prod: deletion protection, retention, termination protection
 *   sandbox                  true | false: deploy the provider sandbox (default: true in dev, false in prod)
 *   providerBaseUrl          the provider the orchestrator calls (default: the sandbox stack's URL)
 *   providerDialect          spec (default) | dapi-v2: how it is spoken to (dapi-v2: the real provider's)
 *   walletAccounts           JSON array of receiving accounts (default in dev: the local stack's two)
 *   defaultWalletAccountId   the wallet account of a deposit that names none (default: the first)
 *   webhookUrl               where deposit events are POSTed (default: none, no events are queued)
 *   alarmEmail               an address subscribed to the alarm topic (default: none)
 *   tuning                   JSON object of the service's tuning variables (see `Tuning`)
 *   depositsAuth             iam (default) | jwt: who may call the deposits API (the wallet's backend)
 *   jwtIssuer, jwtAudience   with depositsAuth=jwt: the issuer's URL, and the audiences (JSON array or a,b)
 *   jwtScopes                with depositsAuth=jwt, required: scopes a token must carry (JSON array or a,b)
 *   depositsThrottle         JSON object of route key to { rateLimit, burstLimit }, over the defaults
 *   reservedConcurrency      JSON object of API function name to its reserved concurrency, over the
 *                            defaults (settings.ts); or false: none reserved
 *   accountConcurrency       the account's concurrent executions quota (default 1000), which the
 *                            reservations must fit
 *   keyAdminRole             the IAM role (name or ARN) that administers the keys (default: the role
 *                            CloudFormation deploys with, the CDK bootstrap's execution role)
 *   traceSampleRate          the share of requests X-Ray traces beyond its first each second, 0 to 1
 *                            (default: 1 in dev, 0.05 in prod)
 *   resolveApprovalAbove     JSON object of currency code to minor units: the largest amount one
 *                            operator may resolve `done` alone (default {}: every `done` needs two)
 *   account, region          the target environment (default: the CLI's, else region us-east-1)
 */
import * as z from 'zod';
import { ApprovalThresholds } from '#shared/operator/approval';
import { dialectNames } from '#shared/provider/interface/dialects';
import { inputLimits } from '#shared/provider/interface/limits';
import { limits } from './settings.ts';

export const stages = ['dev', 'prod'] as const;
export type Stage = (typeof stages)[number];

/**
 * The service variables a deployment may set through the `tuning` context key, and nothing else.
 * Timeouts stay inside the functions' own (see `settings.ts`), so a call cannot outlive its Lambda.
 */
const whole = (max = Number.MAX_SAFE_INTEGER, min = 0) =>
  z.coerce.number().int().min(min).max(max).transform(String).optional();

const Tuning = z.strictObject({
  PROVIDER_TIMEOUT_MS: whole(limits.providerTimeoutMs),
  /** The inline transfer's `action`, as the provider names the payment flow (`shared/config.ts`). */
  PROVIDER_AUTOFLOW_ACTION: z.string().trim().min(1).max(inputLimits.action).optional(),
  LONG_WAIT_SECONDS: whole(900),
  INPUT_TTL_SECONDS: whole(),
  STALL_AFTER_SECONDS: whole(Number.MAX_SAFE_INTEGER, limits.minStallAfterSeconds),
  MAX_RETRIES: whole(),
  COOL_DOWN_RETRY_SECONDS: whole(),
  MAX_REDRIVES: whole(),
  BANK_MEMORY_SECONDS: whole(),
  SOURCE_BANK_MEMORY_SECONDS: whole(),
  RECONCILE_MAX_POLLS: whole(Number.MAX_SAFE_INTEGER, 1),
  RECONCILE_POLL_CAP_SECONDS: whole(900, 1),
  WEBHOOK_TIMEOUT_MS: whole(limits.webhookTimeoutMs),
  WEBHOOK_RETRY_BASE_SECONDS: whole(),
  POWERTOOLS_LOG_LEVEL: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT']).optional(),
  SANDBOX_ASYNC_DELAY_MS: whole(),
  SANDBOX_INPUT_TTL_SECONDS: whole(),
  SANDBOX_ACCESS_CODE_TTL_SECONDS: whole(),
  SANDBOX_TIMEOUT_MS: whole(limits.sandboxTimeoutMs),
  SANDBOX_HOLD_MS: whole(limits.sandboxTimeoutMs),
});
export type Tuning = z.infer<typeof Tuning>;
/** The variables `tuning` may set (the local stack's bundle mode gives its own settings through it). */
export const tuningKeys = Object.keys(Tuning.shape) as (keyof Tuning)[];

/** Reads a context value; `-c` gives strings, `cdk.json` may give JSON values. */
export type ContextReader = (key: string) => unknown;

const bool = z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]);

/** JSON given on the command line arrives as a string; from cdk.json as the value itself. */
const jsonOrValue = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value, context) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      context.addIssue({ code: 'custom', message: 'must be JSON' });
      return z.NEVER;
    }
  }, schema);

/** Enough of a wallet account to fail early; the handlers validate every field again at start. */
const WalletAccount = z.looseObject({
  id: z.string().min(1),
  currency: z.string().length(3),
  name: z.string().min(1),
  iban: z.string().min(1),
  swiftCode: z.string().min(8),
  country: z.string().min(1),
  countryCode: z.string().length(2),
});

/** Where secrets travel (the provider, the webhook receiver): https only in AWS (http is the local stack's). */
const httpsUrl = z.url({
  protocol: /^https$/,
  error: 'must be an https:// URL (http:// only on the local stack)',
});

/** A list: a JSON array, or from the command line also `a,b`. */
const list = z.preprocess(
  (value) => {
    if (typeof value !== 'string') return value;
    const text = value.trim();
    if (text.startsWith('[')) {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return value;
      }
    }
    return text.split(',').map((item) => item.trim());
  },
  z.array(z.string().min(1)).min(1),
);

const Throttle = z.strictObject({
  rateLimit: z.number().positive(),
  burstLimit: z.number().int().min(0),
});

export const Context = z.object({
  stage: z.enum(stages).default('dev'),
  sandbox: bool.optional(),
  providerBaseUrl: httpsUrl.optional(),
  providerDialect: z.enum(dialectNames).default('spec'),
  walletAccounts: jsonOrValue(z.array(WalletAccount).min(1)).optional(),
  defaultWalletAccountId: z.string().min(1).optional(),
  webhookUrl: httpsUrl.optional(),
  alarmEmail: z.email().optional(),
  tuning: jsonOrValue(Tuning).optional(),
  depositsAuth: z.enum(['iam', 'jwt']).default('iam'),
  jwtIssuer: z.url({ protocol: /^https$/ }).optional(),
  jwtAudience: list.optional(),
  jwtScopes: list.optional(),
  depositsThrottle: jsonOrValue(z.record(z.string(), Throttle)).optional(),
  reservedConcurrency: jsonOrValue(
    z.union([z.literal(false), z.record(z.string(), z.int().min(1))]),
  ).optional(),
  accountConcurrency: z.coerce.number().int().min(1).default(1_000),
  keyAdminRole: z
    .string()
    .regex(
      /^(arn:aws[a-z-]*:iam::\d{12}:role\/)?[\w+=,.@/-]{1,512}$/,
      'must be an IAM role name or ARN (arn:aws:iam::<account>:role/<name>)',
    )
    .optional(),
  traceSampleRate: z.coerce.number().min(0).max(1).optional(),
  resolveApprovalAbove: jsonOrValue(ApprovalThresholds).optional(),
  account: z
    .string()
    .regex(/^\d{12}$/, 'must be a 12-digit account id')
    .optional(),
  region: z.string().min(1).optional(),
});

export const contextKeys = Object.keys(Context.shape) as (keyof typeof Context.shape)[];
