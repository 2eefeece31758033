/**
 * A local stack of a test file's own, in its process (as the bench's, the chaos run's, the console's
 * and the clock's: the e2e project's shared stack stays theirs), and sandbox users on it.
 */
import { type LocalStack, startLocalStack } from '#infra/local/stack';
import { TEST_SWEEP_INTERVAL_MS, testEnv } from './local-stack.ts';
import { sharedDynamoDb } from './shared-dynamodb.ts';

export const appSecret = testEnv.SANDBOX_APP_SECRET;

/**
 * How long these stacks' provider client waits for the sandbox: the files run beside the chaos run's
 * hundred deposits, where a sandbox answer can take longer than the shared stack's timeout; a transfer
 * whose answer came late would be an unknown outcome the test did not plan.
 */
export const OWN_STACK_PROVIDER_TIMEOUT_MS = 3_000;

/** A stack of the file's own, with the tests' settings and `env` over them. */
export async function startStack(env: Record<string, string> = {}): Promise<LocalStack> {
  return startLocalStack({
    ...sharedDynamoDb(),
    sandboxPort: 0,
    depositsPort: 0,
    operatorPort: 0,
    visibilityTimeoutSeconds: 2,
    sweepIntervalMs: TEST_SWEEP_INTERVAL_MS,
    env: {
      ...testEnv,
      PROVIDER_TIMEOUT_MS: String(OWN_STACK_PROVIDER_TIMEOUT_MS),
      // A hanging bank holds a call past that timeout.
      SANDBOX_TIMEOUT_MS: String(OWN_STACK_PROVIDER_TIMEOUT_MS + 1_000),
      ...env,
    },
  });
}

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, whose fields the tests read one by one
type Json = Record<string, any>;

export async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

export interface User {
  connectionID: string;
  accessToken: string;
  userSecret: string;
  accountId: string;
}

/** A fresh sandbox user on `bankId`, its access token exchanged. */
export async function createUser(
  stack: LocalStack,
  bankId: string,
  settings: { asyncDelaySeconds?: number; transferDelaySeconds?: number } = {},
): Promise<User> {
  const created = await post(`${stack.sandboxUrl}/sandbox/users`, { appSecret, bankId, ...settings });
  if (created.status !== 201) throw new Error(`user not created: ${JSON.stringify(created.body)}`);
  const { connectionID, accessCode, userSecret, accounts } = created.body;
  const exchanged = await post(`${stack.sandboxUrl}/v1/auth/ExchangeToken`, {
    appSecret,
    accessCode,
    connectionID,
  });
  if (exchanged.status !== 200) throw new Error(`token not exchanged: ${JSON.stringify(exchanged.body)}`);
  return { connectionID, accessToken: exchanged.body.accessToken, userSecret, accountId: accounts[0].id };
}

/** The user's transfers as the bank recorded them. */
export async function transfersOf(stack: LocalStack, user: User) {
  const state = await post(`${stack.sandboxUrl}/sandbox/users/get`, {
    appSecret,
    connectionID: user.connectionID,
  });
  return state.body.transfers as { reference: string; operationID: string; amount: number }[];
}
