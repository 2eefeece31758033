/**
 * Test helpers that talk to the running sandbox over real HTTP, as any client would. Every answer of
 * a documented route is checked against the OpenAPI document's schema for its status.
 */
import { inject } from 'vitest';
import { faultSetter, type Reply, replyOf, userMaker } from './sandbox-users.ts';

export const sandboxUrl = inject('sandboxUrl');

export async function request(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const response = await fetch(`${sandboxUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return replyOf(method, path, response.status, await response.text());
}

export const post = (path: string, body?: unknown, headers?: Record<string, string>) =>
  request('POST', path, body, headers);
export const createUser = userMaker(post);
export const setFaults = faultSetter(post);

export { eventually } from './eventually.ts';
export {
  appSecret,
  faultsOf,
  givenBeneficiary,
  listedIds,
  newlyListedId,
  type Reply,
  stateOf,
  type TestUser,
} from './sandbox-users.ts';
export {
  failed,
  failedOperation,
  ibanFor,
  walletBeneficiary,
  walletIban,
  walletInline,
} from './sandbox-values.ts';
