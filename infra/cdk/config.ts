/**
 * What one deployment is, read from CDK context and checked before anything is built: a wrong
 * setting fails `cdk synth`, naming the context key, not a Lambda at its first cold start. The keys
 * and their schema are in `context.ts`.
 */
import type * as z from 'zod';
import { localWallets } from '#infra/local/wallets';
import type { WalletAccountConfig } from '#shared/config';
import type { ApprovalThresholds } from '#shared/operator/approval';
import type { DialectName } from '#shared/provider/interface/dialects';
import { depositsApi } from '#shared/topology';
import { Context, type ContextReader, contextKeys, type Stage, type Tuning } from './context.ts';
import {
  apiReservedConcurrency,
  consumersConcurrency,
  depositsRouteThrottle,
  lambdaUnreservedMinimum,
} from './settings.ts';

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
  /** The provider's dialect (`PROVIDER_DIALECT`): `spec`, or `dapi-v2` (the real provider's). */
  providerDialect: DialectName;
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
  /**
   * The role that administers the keys (a name in this account, or an ARN); unset, the role
   * CloudFormation deploys with (`keyAdministrator` in `credentials.ts`).
   */
  keyAdminRole?: string;
  /**
   * Per currency, the largest amount (minor units) one operator may resolve `done` alone; a currency
   * not named has none (`RESOLVE_APPROVAL_ABOVE`, `shared/operator/approval.ts`). Empty by default.
   */
  resolveApprovalAbove: ApprovalThresholds;
  /** X-Ray's sampling of this deployment's functions beyond the first request each second (0 to 1). */
  traceSampleRate: number;
}

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
    providerDialect: context.providerDialect,
    walletAccounts,
    defaultWalletAccountId,
    ...(context.webhookUrl ? { webhookUrl: context.webhookUrl } : {}),
    ...(context.alarmEmail ? { alarmEmail: context.alarmEmail } : {}),
    tuning: context.tuning ?? {},
    depositsAccess,
    depositsThrottle: { ...depositsRouteThrottle, ...context.depositsThrottle },
    reservedConcurrency: reservationsOf(context),
    ...(context.keyAdminRole ? { keyAdminRole: context.keyAdminRole } : {}),
    // Four eyes on every `done` unless the deployment names a currency's threshold.
    resolveApprovalAbove: context.resolveApprovalAbove ?? {},
    // Every deposit traced while a team tries the service; in production a sample, as X-Ray bills each.
    traceSampleRate: context.traceSampleRate ?? (stage === 'prod' ? 0.05 : 1),
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
