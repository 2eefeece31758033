/**
 * What the console's browser test stands on: its own local stack (in this process, as the bench's and
 * the chaos run's: the e2e project's stays theirs), sandbox users and deposits over the real APIs,
 * and the operator API for its own checks.
 */
import { type LocalStack, startLocalStack } from '#infra/local/stack';
import { DepositsClient } from '#shared/deposits-api/client';
import { testEnv } from '../support/local-stack.ts';

export const appSecret = testEnv.SANDBOX_APP_SECRET;

export async function startStack(): Promise<LocalStack> {
  return startLocalStack({
    sandboxPort: 0,
    depositsPort: 0,
    operatorPort: 0,
    visibilityTimeoutSeconds: 2,
    sweepIntervalMs: 1_000,
    env: testEnv,
  });
}

// biome-ignore lint/suspicious/noExplicitAny: JSON answers, whose fields the tests read one by one
type Json = Record<string, any>;

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
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
  settings: { asyncDelaySeconds?: number } = {},
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

/** Replaces the user's fault rules at the sandbox. */
export async function setFaults(stack: LocalStack, user: User, faults: Record<string, unknown>[]) {
  const reply = await post(`${stack.sandboxUrl}/sandbox/faults`, {
    appSecret,
    connectionID: user.connectionID,
    faults,
  });
  if (reply.status !== 200) throw new Error(`faults not set: ${JSON.stringify(reply.body)}`);
}

/** The user's transfers as the bank recorded them. */
export async function transfersOf(stack: LocalStack, user: User) {
  const state = await post(`${stack.sandboxUrl}/sandbox/users/get`, {
    appSecret,
    connectionID: user.connectionID,
  });
  return state.body.transfers as { reference: string; operationID: string; amount: number }[];
}

/** The deposits API as a wallet backend calls it (the typed client). */
export function depositsOf(stack: LocalStack, user: User) {
  const client = new DepositsClient({ baseUrl: stack.depositsUrl, retries: 0, timeoutMs: 30_000 });
  const connection = { accessToken: user.accessToken, userSecret: user.userSecret, appSecret };
  return {
    start: async (amount: number) =>
      (await client.create(connection, { amount, senderID: user.accountId })).body.operationID,
    get: async (operationID: string) => (await client.get(connection, operationID)).body,
  };
}

/** The operator API, called as the page calls it (bearer token), for the test's own checks. */
export function operatorOf(stack: LocalStack) {
  return (path: string, body: unknown) =>
    post(`${stack.operatorUrl}/v1/ops/${path}`, body, { authorization: `Bearer ${stack.operatorToken}` });
}
