/**
 * What a bundle runs with on the local stack: the context it is synthesized with, from the stack's
 * own settings, and each function's environment, from its template.
 *
 * The context (`bundleContext`): the development stage with the sandbox, the stack's wallets, dialect,
 * approval thresholds and tuning, and a webhook when the stack has one. So the template names what
 * the function gets in AWS, and the values of its settings are the stack's.
 *
 * The environment (`functionEnvironment`), for each variable the template gives the function:
 *   - a tuning variable the stack sets: the stack's value (the template only says who gets it);
 *   - another value the template writes out (wallets, Powertools' settings, NODE_OPTIONS): as written;
 *   - a reference to a resource of the stacks (a table's name, a queue's URL or ARN, the schedule
 *     group, the scheduler's role): the local stack's value of that variable (it fails, naming the
 *     variable, when the stack has none);
 *   - the provider's and the webhook's URLs: the local stack's (http to this machine);
 *   - a secret's ARN (`*_SECRET_ARN`): a local ARN that the local Secrets Manager (`secrets-manager.ts`)
 *     answers with the stack's value, so that the bundle reads it at cold start as in AWS;
 *   - the credentials key's ARN: left out, and the local key given instead (KMS has no local stand-in);
 * then what Lambda's runtime adds (region, credentials, the function's name, memory and version,
 * LAMBDA_TASK_ROOT, TZ) and what is the local stack's own: the endpoints of DynamoDB Local, fauxqs,
 * the local scheduler and Secrets Manager, the terminal's log format, metrics off. Nothing else of
 * the stack's process reaches the bundle.
 */
import { dirname } from 'node:path';
import { Context, tuningKeys } from '#infra/cdk/context';
import type { BundledFunction } from './build.ts';

/**
 * A tuning value as a deployment may give it: the stack's, or, when a deployment may not (the tests'
 * stacks stall a deposit after 3 s, where AWS needs 160 s or more), the bound it passes. Only which
 * functions get the variable comes of it: their value is the stack's (`functionEnvironment`).
 */
function deployable(key: string, value: string): string {
  const parsed = Context.shape.tuning.safeParse({ [key]: value });
  if (parsed.success) return value;
  const issue = parsed.error.issues[0] as
    | { minimum?: number | bigint; maximum?: number | bigint }
    | undefined;
  const bound = issue?.minimum ?? issue?.maximum;
  if (bound === undefined) throw new Error(`${key}=${value}: ${parsed.error.message}`);
  return String(bound);
}

/** The context the bundles are synthesized with, from the stack's settings (`env`: its process's). */
export function bundleContext(env: NodeJS.ProcessEnv): Record<string, string> {
  const tuning = Object.fromEntries(
    tuningKeys.flatMap((key) => (env[key] ? [[key, deployable(key, env[key])]] : [])),
  );
  const given = (key: string, value: string | undefined) => (value ? { [key]: value } : {});
  return {
    stage: 'dev',
    sandbox: 'true',
    ...given('providerDialect', env.PROVIDER_DIALECT),
    ...given('walletAccounts', env.WALLET_ACCOUNTS),
    ...given('defaultWalletAccountId', env.DEFAULT_WALLET_ACCOUNT_ID),
    ...given('resolveApprovalAbove', env.RESOLVE_APPROVAL_ABOVE),
    // Any https URL: the function's WEBHOOK_URL is the stack's own (below).
    ...(env.WEBHOOK_URL ? { webhookUrl: 'https://webhook.local.invalid/' } : {}),
    ...(Object.keys(tuning).length ? { tuning: JSON.stringify(tuning) } : {}),
  };
}

/** The stack's variable holding the value of each secret a template names by ARN. */
export const secretValues: Record<string, { current: string; previous?: string; fallback?: string }> = {
  // Unset, the sandbox's documented local default (docs/sandbox.md), as its sources use it.
  SANDBOX_APP_SECRET_ARN: { current: 'SANDBOX_APP_SECRET', fallback: 'sandbox-local-app-secret' },
  OWNER_KEY_SECRET_ARN: { current: 'OWNER_KEY' },
  WEBHOOK_SECRET_ARN: { current: 'WEBHOOK_SECRET', previous: 'WEBHOOK_PREVIOUS_SECRET' },
};

/** The local ARN standing for the secret a variable names. */
export const localSecretArn = (variable: string) =>
  `arn:aws:secretsmanager:us-east-1:000000000000:secret:local-${variable.toLowerCase().replaceAll('_', '-')}`;

/** The variables whose value is always the local stack's, whatever the template writes. */
const localValues = new Set(['PROVIDER_BASE_URL', 'WEBHOOK_URL']);
const tuning = new Set<string>(tuningKeys);

/** The process environment of one function's bundle (`env`: the stack's process's, once it started). */
export function functionEnvironment(
  fn: BundledFunction,
  env: NodeJS.ProcessEnv,
  local: { secretsManagerEndpoint: string },
): Record<string, string> {
  const own = (name: string): string => {
    const value = env[name];
    if (value === undefined)
      throw new Error(`${fn.handler}: its template names ${name}, which the local stack does not set`);
    return value;
  };
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(fn.environment)) {
    if (name === 'CREDENTIALS_KEY_ARN') variables.LOCAL_ENCRYPTION_KEY = own('LOCAL_ENCRYPTION_KEY');
    else if (name in secretValues) variables[name] = localSecretArn(name);
    else if (localValues.has(name) || typeof value !== 'string') variables[name] = own(name);
    else variables[name] = (tuning.has(name) ? env[name] : undefined) ?? value;
  }
  const passed = (name: string) => (env[name] === undefined ? {} : { [name]: String(env[name]) });
  return {
    ...variables,
    // As Lambda's runtime sets them.
    AWS_REGION: own('AWS_REGION'),
    AWS_DEFAULT_REGION: own('AWS_REGION'),
    AWS_ACCESS_KEY_ID: own('AWS_ACCESS_KEY_ID'),
    AWS_SECRET_ACCESS_KEY: own('AWS_SECRET_ACCESS_KEY'),
    AWS_LAMBDA_FUNCTION_NAME: fn.handler,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(fn.memoryMb),
    LAMBDA_TASK_ROOT: dirname(fn.file),
    TZ: 'UTC',
    ...passed('PATH'),
    ...passed('LANG'),
    // The local stack's own: its services' endpoints, and its terminal's logs.
    DYNAMODB_ENDPOINT: own('DYNAMODB_ENDPOINT'),
    SQS_ENDPOINT: own('SQS_ENDPOINT'),
    SCHEDULER_ENDPOINT: own('SCHEDULER_ENDPOINT'),
    AWS_ENDPOINT_URL_SECRETS_MANAGER: local.secretsManagerEndpoint,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...passed('LOG_FORMAT'),
    ...passed('POWERTOOLS_METRICS_DISABLED'),
  };
}
