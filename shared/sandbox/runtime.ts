/**
 * The sandbox as the handlers of provider operations and administration use it: the domain wired to
 * its DynamoDB table and configuration. Loading it reads the application secret (in AWS, from Secrets
 * Manager, once at cold start); handlers that need neither secret nor table do not import it.
 */
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { dynamodbClient } from '#shared/adapters/clients';
import { SandboxTable } from '#shared/adapters/sandbox-table';
import { sandboxConfig } from '#shared/config';
import { digest } from '#shared/secrets';
import { Sandbox } from './sandbox.ts';

const config = sandboxConfig();
// In AWS the application secret is in Secrets Manager, read once at cold start.
const appSecret = config.SANDBOX_APP_SECRET_ARN
  ? await getSecret(config.SANDBOX_APP_SECRET_ARN)
  : config.SANDBOX_APP_SECRET;
if (typeof appSecret !== 'string' || appSecret.length < 8) {
  throw new Error('SANDBOX_APP_SECRET_ARN: the secret has no value of 8 characters or more');
}

export const sandbox = new Sandbox(new SandboxTable(dynamodbClient(), config.SANDBOX_TABLE_NAME), {
  defaultAppSecretDigest: digest(appSecret),
  asyncDelayMs: config.SANDBOX_ASYNC_DELAY_MS,
  inputTtlMs: config.SANDBOX_INPUT_TTL_SECONDS * 1000,
  lockMs: 30_000,
  accessCodeTtlMs: config.SANDBOX_ACCESS_CODE_TTL_SECONDS * 1000,
  timeoutFaultMs: config.SANDBOX_TIMEOUT_MS,
});
