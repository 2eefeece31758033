/** The sandbox as the handlers use it: the domain wired to its DynamoDB table and configuration. */
import { dynamodb } from '#shared/adapters/dynamodb';
import { SandboxTable } from '#shared/adapters/sandbox-table';
import { sandboxConfig } from '#shared/config';
import { digest } from '#shared/secrets';
import { Sandbox } from './simulator.ts';

const config = sandboxConfig();

export const sandbox = new Sandbox(new SandboxTable(dynamodb, config.SANDBOX_TABLE_NAME), {
  defaultAppSecretDigest: digest(config.SANDBOX_APP_SECRET),
  asyncDelayMs: config.SANDBOX_ASYNC_DELAY_MS,
  inputTtlMs: config.SANDBOX_INPUT_TTL_SECONDS * 1000,
  lockMs: 30_000,
  accessCodeTtlMs: config.SANDBOX_ACCESS_CODE_TTL_SECONDS * 1000,
});

export const timeoutFaultMs = config.SANDBOX_TIMEOUT_MS;
