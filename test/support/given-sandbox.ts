/**
 * A `Sandbox` for unit tests over a fresh in-memory store (`FakeSandboxStore`) on a manual clock, with
 * users created as a client would create them and called as HTTP would answer them.
 */

import type { Clock } from '#shared/clock';
import { failedEnvelope } from '#shared/middleware/http';
import { EnvelopeError } from '#shared/provider/interface/errors';
import { ExchangeTokenResponse } from '#shared/provider/interface/responses';
import { CreateSandboxUserResponse } from '#shared/sandbox/admin-schemas';
import type { HttpAnswer } from '#shared/sandbox/answer';
import type { OperationContext } from '#shared/sandbox/operation-spec';
import { Sandbox, type SandboxOptions } from '#shared/sandbox/sandbox';
import { digest } from '#shared/secrets';
import { FakeSandboxStore } from './fake-sandbox-store.ts';
import { ManualClock } from './manual-clock.ts';

export const testAppSecret = 'unit-test-app-secret';

export const testSandboxOptions: SandboxOptions = {
  defaultAppSecretDigest: digest(testAppSecret),
  asyncDelayMs: 1_000,
  inputTtlMs: 60_000,
  lockMs: 30_000,
  accessCodeTtlMs: 600_000,
  timeoutFaultMs: 25_000,
};

export { walletBeneficiary } from './sandbox-values.ts';

/** A provider operation as the handlers call it: a context and the request's body. */
type Operation<R> = (context: OperationContext, request: R) => Promise<HttpAnswer>;
type Credentials = { appSecret: string; userSecret: string };

/** A sandbox user, with what a client holds once it has exchanged its access code. */
export interface SandboxTestUser {
  connectionId: string;
  accountId: string;
  cardId: string;
  /**
   * Calls a provider operation as this user, answered as HTTP would answer it: a refusal thrown by
   * the sandbox becomes its failed envelope and status.
   */
  call<R extends Credentials>(
    operation: Operation<R>,
    body: Omit<R, keyof Credentials>,
    request?: { path?: string; headers?: Record<string, string> },
  ): Promise<HttpAnswer>;
}

/** A sandbox over a fresh fake store, on a manual clock (or the clock given). */
export function givenSandbox<C extends Clock = ManualClock>(
  options: { clock?: C; settings?: Partial<SandboxOptions> } = {},
) {
  const store = new FakeSandboxStore();
  const clock = options.clock ?? new ManualClock();
  const sandbox = new Sandbox(store, { ...testSandboxOptions, ...options.settings }, clock);

  async function createUser(
    bankId: string,
    settings: {
      balance?: number;
      inputTtlSeconds?: number;
      asyncDelaySeconds?: number;
      transferDelaySeconds?: number;
    } = {},
  ): Promise<SandboxTestUser> {
    const { administration } = sandbox;
    const created = await administration.createUser({ appSecret: testAppSecret, bankId, ...settings });
    const user = CreateSandboxUserResponse.parse(created.body);
    const exchanged = await administration.exchangeToken({
      appSecret: testAppSecret,
      connectionID: user.connectionID,
      accessCode: user.accessCode,
    });
    const { accessToken } = ExchangeTokenResponse.parse(exchanged.body);
    const [account] = user.accounts;
    const [card] = user.cards;
    if (!account || !card) throw new Error('a new sandbox user has an account and a card');
    const credentials = { appSecret: testAppSecret, userSecret: user.userSecret };
    return {
      connectionId: user.connectionID,
      accountId: account.id,
      cardId: card.id,
      call: (operation, body, request = {}) =>
        asHttp(
          sandbox.operate(
            {
              path: request.path ?? '/',
              headers: { authorization: `Bearer ${accessToken}`, ...request.headers },
              body: { ...body, ...credentials },
              ...credentials,
            },
            (context) => operation(context, { ...body, ...credentials } as Parameters<typeof operation>[1]),
          ),
        ),
    };
  }

  return { sandbox, store, clock: clock as C, createUser };
}

/** The answer, or the failed envelope and status the HTTP middleware makes of a refusal. */
export async function asHttp(answer: Promise<HttpAnswer>): Promise<HttpAnswer> {
  try {
    return await answer;
  } catch (error) {
    if (error instanceof EnvelopeError) return { status: error.status, body: failedEnvelope(error) };
    throw error;
  }
}
