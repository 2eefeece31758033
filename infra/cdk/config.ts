/**
 * What one deployment is, read from CDK context (`-c key=value` or `cdk.json`) and checked before
 * anything is built: a wrong setting fails `cdk synth`, naming the context key, not a Lambda at
 * its first cold start.
 *
 *   stage                    dev (default) | prod: deletion protection, retention, termination protection
 *   sandbox                  true | false: deploy the provider sandbox (default: true in dev, false in prod)
 *   providerBaseUrl          the provider the orchestrator calls (default: the sandbox stack's URL)
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
 *   account, region          the target environment (default: the CLI's, else region us-east-1)
 */
import * as z from 'zod';
import { localWallets } from '#infra/local/wallets';
import { depositsApi } from '#infra/topology';
import type { WalletAccountConfig } from '#shared/config';
import { inputLimits } from '#shared/provider/interface/limits';
import {
  apiReservedConcurrency,
  consumersConcurrency,
  depositsRouteThrottle,
  lambdaUnreservedMinimum,
  limits,
} from './settings.ts';

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
  MAX_REDRIVES: whole(),
  BANK_MEMORY_SECONDS: whole(),
  SOURCE_BANK_MEMORY_SECONDS: whole(),
  WEBHOOK_TIMEOUT_MS: whole(limits.webhookTimeoutMs),
  WEBHOOK_RETRY_BASE_SECONDS: whole(),
  POWERTOOLS_LOG_LEVEL: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT']).optional(),
  SANDBOX_ASYNC_DELAY_MS: whole(),
  SANDBOX_INPUT_TTL_SECONDS: whole(),
  SANDBOX_ACCESS_CODE_TTL_SECONDS: whole(),
  SANDBOX_TIMEOUT_MS: whole(limits.sandboxTimeoutMs),
});
export type Tuning = z.infer<typeof Tuning>;

/** Who may call the deposits API: the wallet's backend, by its IAM identity (SigV4) or by a JWT. */
export type DepositsAccess =
  | { kind: 'iam' }
  | { kind: 'jwt'; issuer: string; audience: string[]; scopes: string[] };

/** A route's throttle on the stage: steady requests per second, and the burst above it. */
export interface RouteThrottle {
  rateLimit: number;
  burstLimit: number;
}

export interface DeploymentConfig {
  stage: Stage;
  /** Prefix of the stack names: `BankPayments-<stage>`. */
  prefix: string;
  env: { account?: string; region: string };
  sandbox: boolean;
  /** Set when configured; otherwise the orchestrator calls the sandbox stack. */
  providerBaseUrl?: string;
  walletAccounts: WalletAccountConfig[];
  defaultWalletAccountId: string;
  webhookUrl?: string;
  alarmEmail?: string;
  tuning: Tuning;
  depositsAccess: DepositsAccess;
  /** Per deposits route (`POST /v1/deposits/create`, ...): the defaults, with the context's over them. */
  depositsThrottle: Record<string, RouteThrottle>;
  /** Per API function name (`deposits-create`, ...): its reserved concurrency; empty when off. */
  reservedConcurrency: Record<string, number>;
}

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

const Context = z.object({
  stage: z.enum(stages).default('dev'),
  sandbox: bool.optional(),
  providerBaseUrl: httpsUrl.optional(),
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
  account: z
    .string()
    .regex(/^\d{12}$/, 'must be a 12-digit account id')
    .optional(),
  region: z.string().min(1).optional(),
});

const contextKeys = Object.keys(Context.shape) as (keyof typeof Context.shape)[];

/** A setting of the deployment is missing or wrong: the message names the context key. */
export class DeploymentConfigError extends Error {
  constructor(problem: string) {
    super(`Invalid CDK context: ${problem}`);
    this.name = 'DeploymentConfigError';
  }
}

export function readDeploymentConfig(
  read: ContextReader,
  environment: NodeJS.ProcessEnv = process.env,
): DeploymentConfig {
  const raw = Object.fromEntries(contextKeys.map((key) => [key, read(key) ?? undefined]));
  const parsed = Context.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || 'context'}: ${issue.message}`,
    );
    throw new DeploymentConfigError(problems.join('; '));
  }
  const context = parsed.data;
  const stage = context.stage;
  const sandbox = context.sandbox ?? stage === 'dev';
  if (!sandbox && !context.providerBaseUrl) {
    throw new DeploymentConfigError(
      'providerBaseUrl: required without the sandbox stack (-c providerBaseUrl=https://... or -c sandbox=true)',
    );
  }
  if (!context.walletAccounts && stage !== 'dev') {
    throw new DeploymentConfigError(`walletAccounts: required in stage ${stage} (a JSON array)`);
  }
  const walletAccounts = (context.walletAccounts ?? localWallets) as WalletAccountConfig[];
  const ids = walletAccounts.map((wallet) => wallet.id);
  if (new Set(ids).size !== ids.length) {
    throw new DeploymentConfigError('walletAccounts: ids must be unique');
  }
  // Lambda allows 4 KB of environment in all; the accounts share it with a dozen ARNs and URLs.
  if (JSON.stringify(walletAccounts).length > 2_500) {
    throw new DeploymentConfigError(
      'walletAccounts: over 2,500 characters of JSON, too much for a Lambda environment',
    );
  }
  const defaultWalletAccountId = context.defaultWalletAccountId ?? ids[0] ?? '';
  if (!ids.includes(defaultWalletAccountId)) {
    throw new DeploymentConfigError(
      `defaultWalletAccountId: ${defaultWalletAccountId} is not one of ${ids.join(', ')}`,
    );
  }
  const account = context.account ?? environment.CDK_DEFAULT_ACCOUNT;
  const depositsAccess = accessOf(context);
  const routeKeys = depositsApi.routes.map((route) => `${route.method} ${route.path}`);
  const unknownRoute = Object.keys(context.depositsThrottle ?? {}).find((key) => !routeKeys.includes(key));
  if (unknownRoute) {
    throw new DeploymentConfigError(
      `depositsThrottle: ${unknownRoute} is not a deposits route (${routeKeys.join(', ')})`,
    );
  }
  return {
    stage,
    prefix: `BankPayments-${stage}`,
    env: {
      ...(account ? { account } : {}),
      region: context.region ?? environment.CDK_DEFAULT_REGION ?? 'us-east-1',
    },
    sandbox,
    ...(context.providerBaseUrl ? { providerBaseUrl: context.providerBaseUrl } : {}),
    walletAccounts,
    defaultWalletAccountId,
    ...(context.webhookUrl ? { webhookUrl: context.webhookUrl } : {}),
    ...(context.alarmEmail ? { alarmEmail: context.alarmEmail } : {}),
    tuning: context.tuning ?? {},
    depositsAccess,
    depositsThrottle: { ...depositsRouteThrottle, ...context.depositsThrottle },
    reservedConcurrency: reservationsOf(context),
  };
}

/** The API functions' reservations: the defaults with the context's over them, fitting the account. */
function reservationsOf(context: z.infer<typeof Context>): Record<string, number> {
  const given = context.reservedConcurrency;
  if (given === false) return {};
  const names = Object.keys(apiReservedConcurrency);
  const unknown = Object.keys(given ?? {}).find((name) => !names.includes(name));
  if (unknown) {
    throw new DeploymentConfigError(
      `reservedConcurrency: ${unknown} is not an API function (${names.join(', ')})`,
    );
  }
  const reserved = { ...apiReservedConcurrency, ...given };
  const total = Object.values(reserved).reduce((sum, value) => sum + value, 0);
  const room = context.accountConcurrency - lambdaUnreservedMinimum - consumersConcurrency;
  if (total > room) {
    throw new DeploymentConfigError(
      `reservedConcurrency: reserves ${total} of accountConcurrency ${context.accountConcurrency}, which must keep ${lambdaUnreservedMinimum} unreserved (Lambda's minimum) and ${consumersConcurrency} for the queue consumers: lower it, give the account's quota as accountConcurrency, or set reservedConcurrency=false`,
    );
  }
  return reserved;
}

function accessOf(context: z.infer<typeof Context>): DepositsAccess {
  if (context.depositsAuth === 'iam') {
    const stray = (['jwtIssuer', 'jwtAudience', 'jwtScopes'] as const).find(
      (key) => context[key] !== undefined,
    );
    if (stray) throw new DeploymentConfigError(`${stray}: only with depositsAuth=jwt`);
    return { kind: 'iam' };
  }
  if (!context.jwtIssuer)
    throw new DeploymentConfigError('jwtIssuer: required with depositsAuth=jwt (https://...)');
  if (!context.jwtAudience) throw new DeploymentConfigError('jwtAudience: required with depositsAuth=jwt');
  // Without scopes any token the issuer gives for that audience would do, whatever it was meant for.
  if (!context.jwtScopes) {
    throw new DeploymentConfigError(
      'jwtScopes: required with depositsAuth=jwt (the scope a token must carry)',
    );
  }
  return {
    kind: 'jwt',
    issuer: context.jwtIssuer,
    audience: context.jwtAudience,
    scopes: context.jwtScopes,
  };
}
