/**
 * The caller's side of the bench's measured deposits: sandbox users, and deposits from create to
 * done over the deposits API, each API request counted and timed (its time is the API function's
 * duration the cost model uses: the handler plus a loopback HTTP hop, so slightly more).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LocalStack } from '#infra/local/stack';
import { DepositsClient } from '#shared/deposits-api/client';

export const appSecret = 'sandbox-local-app-secret';

export interface BenchUser {
  bankId: string;
  accessToken: string;
  userSecret: string;
  accountId: string;
}

/** API requests by route (`/v1/deposits/create`), each with its time in ms. */
export type ApiTally = Record<string, number[]>;

async function call(url: string, body: unknown, headers: Record<string, string> = {}, tally?: ApiTally) {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, any>;
  if (tally) {
    const route = new URL(url).pathname;
    tally[route] = [...(tally[route] ?? []), performance.now() - started];
  }
  return json;
}

export async function createUser(
  stack: LocalStack,
  bankId: string,
  settings: { asyncDelaySeconds?: number } = {},
): Promise<BenchUser> {
  const user = await call(`${stack.sandboxUrl}/sandbox/users`, { appSecret, bankId, ...settings });
  if (!user.accessCode) throw new Error(`no sandbox user on ${bankId}: ${JSON.stringify(user)}`);
  const { accessToken } = await call(`${stack.sandboxUrl}/v1/auth/ExchangeToken`, {
    appSecret,
    accessCode: user.accessCode,
    connectionID: user.connectionID,
  });
  return {
    bankId,
    accessToken,
    userSecret: user.userSecret as string,
    accountId: user.accounts[0].id as string,
  };
}

/** Users in groups of `parallel` (the sandbox's admin routes are not what is measured). */
export async function createUsers(
  stack: LocalStack,
  bankId: string,
  count: number,
  parallel = 20,
  settings: { asyncDelaySeconds?: number } = {},
) {
  const users: BenchUser[] = [];
  for (let index = 0; index < count; index += parallel) {
    const group = Math.min(parallel, count - index);
    users.push(
      ...(await Promise.all(Array.from({ length: group }, () => createUser(stack, bankId, settings)))),
    );
  }
  return users;
}

export interface DepositRun {
  status: string;
  /** Create until the 202, and create until the deposit read `done` (or `failed`), in ms. */
  acceptedMs: number;
  doneMs: number;
  failure?: unknown;
  /** The deposit's history as it ended: each step it entered, and when. */
  history: { step: string; at: string }[];
}

/** The wallet account of the bank's currency (the sandbox's Kuwaiti bank pays in KWD). */
const walletOf = (bankId: string) => (bankId === 'SANDBOX_KWD' ? 'wallet-kwd' : 'wallet-aed');

/** One deposit from create until it is done or failed, read every `pollMs`. */
export async function runDeposit(
  stack: LocalStack,
  user: BenchUser,
  amount: number,
  options: { pollMs: number; api?: ApiTally; timeoutMs?: number },
): Promise<DepositRun> {
  const deposits = new DepositsClient({ baseUrl: stack.depositsUrl, fetch: timed(options.api) });
  const connection = { accessToken: user.accessToken, appSecret, userSecret: user.userSecret };
  const started = performance.now();
  const created = await deposits.create(connection, {
    amount,
    senderID: user.accountId,
    walletAccountID: walletOf(user.bankId),
  });
  const acceptedMs = performance.now() - started;
  const deadline = started + (options.timeoutMs ?? 60_000);
  for (;;) {
    const { body: state } = await deposits.get(connection, created.body.operationID);
    if (state.status === 'done' || state.status === 'failed' || performance.now() > deadline) {
      return {
        status: String(state.status),
        acceptedMs,
        doneMs: performance.now() - started,
        history: state.history,
        ...(state.status === 'done' ? {} : { failure: state }),
      };
    }
    await sleep(options.pollMs);
  }
}

/** A fetch that adds each request's time, by route, to `tally`. */
function timed(tally: ApiTally | undefined): typeof fetch {
  if (!tally) return globalThis.fetch;
  return async (input, init) => {
    const started = performance.now();
    try {
      return await globalThis.fetch(input, init);
    } finally {
      const route = new URL(String(input)).pathname;
      tally[route] = [...(tally[route] ?? []), performance.now() - started];
    }
  };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
