/**
 * The sandbox wired for its handlers: the domain over its DynamoDB table and configuration, and the
 * route of the provider operations. Loading it reads the application secret (in AWS, from Secrets
 * Manager, once at cold start); handlers that need neither secret nor table (health, not-found, the
 * bank catalog) do not import it.
 */
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import type { z } from 'zod';
import { dynamodbClient } from '#shared/adapters/clients';
import { SandboxTable } from '#shared/adapters/sandbox-table';
import { sandboxConfig } from '#shared/config';
import { logFault, parseJsonBody, sandboxHandler } from '#shared/middleware/sandbox-route';
import type { HttpAnswer } from '#shared/sandbox/answer';
import type { OperationContext } from '#shared/sandbox/operation-spec';
import { Sandbox } from '#shared/sandbox/sandbox';
import { digest } from '#shared/secrets';

const config = sandboxConfig();
const appSecret = config.SANDBOX_APP_SECRET_ARN
  ? await getSecret(config.SANDBOX_APP_SECRET_ARN)
  : config.SANDBOX_APP_SECRET;
if (typeof appSecret !== 'string' || appSecret.length < 8) {
  throw new Error('SANDBOX_APP_SECRET_ARN: the secret has no value of 8 characters or more');
}

export const sandbox = new Sandbox(new SandboxTable(dynamodbClient(), config.SANDBOX_TABLE_NAME), {
  defaultAppSecretDigest: digest(appSecret),
  asyncDelayMs: config.SANDBOX_ASYNC_DELAY_MS,
  holdMs: config.SANDBOX_HOLD_MS,
  inputTtlMs: config.SANDBOX_INPUT_TTL_SECONDS * 1000,
  lockMs: 30_000,
  accessCodeTtlMs: config.SANDBOX_ACCESS_CODE_TTL_SECONDS * 1000,
  timeoutFaultMs: config.SANDBOX_TIMEOUT_MS,
  onFault: logFault,
});

type Credentials = { appSecret: string; userSecret: string };

/**
 * The handler of a provider operation: the body validated by its schema, then one operation on the
 * connection its bearer token and secrets name, under the request's fault (`shared/sandbox/faults.ts`).
 */
export function connectionRoute<S extends z.ZodType<Credentials>>(
  schema: S,
  operation: (context: OperationContext, body: z.infer<S>) => Promise<HttpAnswer>,
) {
  return sandboxHandler(async (event) => {
    const body = parseJsonBody(event, schema);
    const { appSecret, userSecret } = body;
    const request = { path: event.rawPath, headers: event.headers, body, appSecret, userSecret };
    return sandbox.operate(request, (context) => operation(context, body));
  });
}
