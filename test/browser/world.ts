/**
 * What the console's browser test stands on: its own local stack (`test/support/own-stack.ts`),
 * sandbox users and deposits over the real APIs, and the operator API for its own checks.
 */
import type { LocalStack } from '#infra/local/stack';
import { DepositsClient } from '#shared/deposits-api/client';
import { appSecret, post, type User } from '../support/own-stack.ts';

export { createUser, startStack, transfersOf, type User } from '../support/own-stack.ts';

/** Replaces the user's fault rules at the sandbox. */
export async function setFaults(stack: LocalStack, user: User, faults: Record<string, unknown>[]) {
  const reply = await post(`${stack.sandboxUrl}/sandbox/faults`, {
    appSecret,
    connectionID: user.connectionID,
    faults,
  });
  if (reply.status !== 200) throw new Error(`faults not set: ${JSON.stringify(reply.body)}`);
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
