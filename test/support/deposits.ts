/** Test helpers for the deposits API, over real HTTP against the running local stack. */
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { appSecret, eventually, type Reply, type TestUser } from './sandbox.ts';

export const depositsUrl = inject('depositsUrl');
export const schedulerEndpoint = inject('schedulerEndpoint');
export const webhookUrl = inject('webhookUrl');

async function call(url: string, init: RequestInit): Promise<Reply> {
  const response = await fetch(url, init);
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    throw new Error(`non-JSON answer ${response.status} from ${url}: ${text}`);
  }
}

export interface DepositRequest {
  amount: number;
  senderID?: string;
  walletAccountID?: string;
  userInputs?: { id: string; index: number; query: string; answer: string }[];
}

/** POST /v1/deposits/create as this user; a fresh Idempotency-Key unless one is given. */
export function startDeposit(user: TestUser, request: DepositRequest, idempotencyKey: string = randomUUID()) {
  return call(`${depositsUrl}/v1/deposits/create`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${user.accessToken}`,
      'idempotency-key': idempotencyKey,
    },
    body: JSON.stringify({ appSecret, userSecret: user.userSecret, senderID: user.accountId, ...request }),
  });
}

export function readDeposit(user: Pick<TestUser, 'accessToken' | 'userSecret'>, operationID: string) {
  return call(`${depositsUrl}/v1/deposits/get`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${user.accessToken}` },
    body: JSON.stringify({ appSecret, userSecret: user.userSecret, operationID }),
  });
}

/** POST /v1/deposits/cancel as this user. */
export function cancelDeposit(user: Pick<TestUser, 'accessToken' | 'userSecret'>, operationID: string) {
  return call(`${depositsUrl}/v1/deposits/cancel`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${user.accessToken}` },
    body: JSON.stringify({ appSecret, userSecret: user.userSecret, operationID }),
  });
}

/** POST /v1/deposits/list as this user: a page, from `cursor` when given. */
export function listDeposits(
  user: Pick<TestUser, 'accessToken' | 'userSecret'>,
  page: { limit?: number; cursor?: string } = {},
) {
  return call(`${depositsUrl}/v1/deposits/list`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${user.accessToken}` },
    body: JSON.stringify({ appSecret, userSecret: user.userSecret, ...page }),
  });
}

/** Polls the deposit until `stop` says so (by default: done or failed); returns the last read. */
export function depositWhen(
  user: TestUser,
  operationID: string,
  stop: (deposit: Reply['body']) => boolean = (deposit) =>
    deposit.status === 'done' || deposit.status === 'failed',
  timeoutMs = 20_000,
) {
  return eventually(async () => {
    const { body } = await readDeposit(user, operationID);
    return stop(body) ? body : undefined;
  }, timeoutMs);
}

/** The OTP answer to a deposit's pending question. */
export function otpAnswer(deposit: Reply['body'], answer = '123456') {
  return (deposit.userInputs as { id: string; index: number; query: string }[]).map((input) => ({
    ...input,
    answer,
  }));
}

export async function webhookDeliveries(depositId: string) {
  const response = await fetch(`${webhookUrl}/deliveries?depositId=${encodeURIComponent(depositId)}`);
  return (await response.json()) as {
    deliveries: {
      id: string;
      type: string;
      depositId: string;
      data: Record<string, unknown>;
      verified: boolean;
    }[];
    refused: number;
    refusedForDeposit?: number;
  };
}

export async function localSchedules() {
  const response = await fetch(`${schedulerEndpoint}/_local/schedules`);
  return (await response.json()) as {
    schedules: { Name: string; GroupName: string; ScheduleExpression: string; Target: { Input: string } }[];
    fired: { name: string; at: string; firedAt: string; early: boolean }[];
  };
}

/** Fires a local schedule now (early, or a second time): a misbehaving scheduler. */
export async function fireSchedule(name: string, groupName = 'deposits') {
  const response = await fetch(
    `${schedulerEndpoint}/_local/schedules/${encodeURIComponent(name)}/fire?groupName=${groupName}`,
    {
      method: 'POST',
    },
  );
  return response.status;
}

/** Arms a crash point for this user's deposits (local stack only): the step dies there, once by default. */
export async function armCrash(
  user: TestUser,
  point: 'before-provider-call' | 'after-provider-call' | 'before-state-write' | 'after-state-write',
  options: { step?: string; times?: number } = {},
) {
  const response = await fetch(`${depositsUrl}/_local/crash`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ point, accessToken: user.accessToken, ...options }),
  });
  if (!response.ok) throw new Error(`crash not armed: ${response.status}`);
}
