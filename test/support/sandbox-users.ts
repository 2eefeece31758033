/**
 * The sandbox test helpers that do not depend on how the sandbox is reached: a test user and its
 * calls, its beneficiaries, state and faults, and a reply read and held to the OpenAPI document.
 * `sandbox.ts` gives them over real HTTP, `in-process-sandbox.ts` in the test's own process.
 */
import { SandboxUserResponse } from '#shared/sandbox/admin-schemas';
import { expectDocumented } from './contract.ts';
import { walletBeneficiary } from './sandbox-values.ts';

export const appSecret = 'sandbox-local-app-secret';

export interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, whose fields the tests read one by one
  body: Record<string, any>;
}

/** An answer's text as a reply, JSON, and held to the schema of a documented route's status. */
export function replyOf(method: string, path: string, status: number, text: string): Reply {
  // biome-ignore lint/suspicious/noExplicitAny: as above
  let parsed: Record<string, any>;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`non-JSON answer ${status} from ${method} ${path}: ${text}`);
  }
  expectDocumented('sandbox', method, path, status, parsed);
  return { status, body: parsed };
}

export interface TestUser {
  connectionID: string;
  userSecret: string;
  accessToken: string;
  accountId: string;
  cardId: string;
  balance: number;
  /** Calls a provider endpoint as this user: bearer token and both secrets added. */
  call(path: string, body?: Record<string, unknown>, headers?: Record<string, string>): Promise<Reply>;
  /** The user's accounts and transfers as the sandbox holds them now. */
  state(): Promise<Reply['body']>;
}

/** What the helpers call the sandbox through: over HTTP (`sandbox.ts`) or in process (`in-process-sandbox.ts`). */
export type Post = (path: string, body?: unknown, headers?: Record<string, string>) => Promise<Reply>;

/** `createUser` over `post`: a user of `bankId` with its token exchanged, and its calls. */
export const userMaker = (post: Post) =>
  async function createUser(
    bankId: string,
    options: {
      balance?: number;
      inputTtlSeconds?: number;
      asyncDelaySeconds?: number;
      transferDelaySeconds?: number;
      appSecret?: string;
    } = {},
  ): Promise<TestUser> {
    const { appSecret: app = appSecret, ...settings } = options;
    const created = await post('/sandbox/users', { appSecret: app, bankId, ...settings });
    if (created.status !== 201) throw new Error(`user not created: ${JSON.stringify(created.body)}`);
    const { connectionID, accessCode, userSecret, accounts, cards } = created.body;
    const exchanged = await post('/v1/auth/ExchangeToken', { appSecret: app, accessCode, connectionID });
    if (exchanged.status !== 200) throw new Error(`token not exchanged: ${JSON.stringify(exchanged.body)}`);
    const accessToken: string = exchanged.body.accessToken;
    return {
      connectionID,
      userSecret,
      accessToken,
      accountId: accounts[0].id,
      cardId: cards[0].id,
      balance: accounts[0].balance,
      call: (path, body = {}, headers = {}) =>
        post(
          path,
          { appSecret: app, userSecret, ...body },
          { authorization: `Bearer ${accessToken}`, ...headers },
        ),
      state: async () => (await post('/sandbox/users/get', { appSecret: app, connectionID })).body,
    };
  };

/**
 * The ids of the user's listed beneficiaries, oldest first; a bank that asks a question on the list
 * is answered with the sandbox's one-time password.
 */
export async function listedIds(user: TestUser): Promise<string[]> {
  let reply = await user.call('/v1/payment/beneficiaries/get', { sync: true });
  if (reply.body.status === 'user_input_required') {
    const userInputs = reply.body.userInputs.map((input: object) => ({ ...input, answer: '123456' }));
    reply = await user.call('/v1/payment/beneficiaries/get', { sync: true, userInputs });
  }
  if (reply.body.status !== 'done') throw new Error(`no list: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.beneficiaries.map((beneficiary: { id: string }) => beneficiary.id);
}

/**
 * The id of a beneficiary just created: the one the list shows that it did not show before (the
 * creation's `reference` is a receipt number, not the id). Fails loudly when the list shows none.
 */
export async function newlyListedId(user: TestUser, before: string[]): Promise<string> {
  const added = (await listedIds(user)).filter((id) => !before.includes(id));
  if (added.length !== 1)
    throw new Error(`expected one new beneficiary listed, got ${JSON.stringify(added)}`);
  return added[0] as string;
}

/**
 * Creates the wallet beneficiary (with overrides) and returns its id, as the list gives it, failing
 * loudly when refused. Only at banks that list new beneficiaries at once.
 */
export async function givenBeneficiary(
  user: TestUser,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const before = await listedIds(user);
  const reply = await user.call('/v1/payment/beneficiaries/create', {
    sync: true,
    ...walletBeneficiary(overrides),
  });
  if (reply.status !== 200 || reply.body.status !== 'done') {
    throw new Error(`beneficiary not created: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
  return newlyListedId(user, before);
}

/** The user's account balance and transfers as the sandbox holds them now. */
export async function stateOf(user: TestUser) {
  const state = SandboxUserResponse.parse(await user.state());
  const [account] = state.accounts;
  if (!account) throw new Error('user has no account');
  return { balance: account.balance, transfers: state.transfers };
}

/** The user's fault rules as the sandbox holds them: a counted rule with what it has left. */
export async function faultsOf(user: TestUser) {
  return SandboxUserResponse.parse(await user.state()).faults;
}

/** `setFaults` over `post`: replaces the user's fault rules at the sandbox, failing loudly when refused. */
export const faultSetter = (post: Post) =>
  async function setFaults(user: TestUser, faults: Record<string, unknown>[]) {
    const reply = await post('/sandbox/faults', { appSecret, connectionID: user.connectionID, faults });
    if (reply.status !== 200)
      throw new Error(`faults not set: ${reply.status} ${JSON.stringify(reply.body)}`);
  };
