/** Test helpers for the deposits API, over real HTTP against the running local stack. */
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { DepositsApiError, DepositsClient } from '#shared/deposits-api/client';
import { dialects, type ProviderCall } from '#shared/provider/interface/dialects';
import { expectDocumented } from './contract.ts';
import { appSecret, eventually, type Reply, type TestUser } from './sandbox.ts';
import { storedState } from './stored-state.ts';

export const depositsUrl = inject('depositsUrl');
export const schedulerEndpoint = inject('schedulerEndpoint');
export const webhookUrl = inject('webhookUrl');

/** The dialect the stack's provider client speaks: the `e2e-v2` project runs the deposit files in v2. */
export const providerDialect = dialects[inject('providerDialect')];

/** Where the stack's provider client makes `call`: the path a fault rule for it names. */
export const providerPath = (call: ProviderCall): string => providerDialect.paths[call];

/**
 * Whether a transfer at a bank that answers at once is read back: in the spec dialect it is sent with
 * `sync: false`, and `reconcile` reads its outcome; in v2, which sends no `sync`, the provider holds
 * it until it is done, and its answer is the outcome (a slower bank is read back in both).
 */
export const readsTransferBack = providerDialect.sendsSync;

/** A deposit's steps from its transfer on, at a bank that answers at once, in the stack's dialect. */
export const transferSteps: string[] = readsTransferBack ? ['transfer', 'reconcile'] : ['transfer'];

/**
 * The typed client a wallet backend uses (`shared/deposits-api/client.ts`), without its retries: a
 * test sees each answer as it came. Every answer is checked against the documented schema.
 */
export const depositsClient = new DepositsClient({ baseUrl: depositsUrl, retries: 0, timeoutMs: 30_000 });

type Connection = Pick<TestUser, 'accessToken' | 'userSecret'>;
const connectionOf = (user: Connection) => ({
  accessToken: user.accessToken,
  userSecret: user.userSecret,
  appSecret,
});

/** The client's answer or refusal as a Reply, checked against the OpenAPI document. */
async function reply(path: string, answer: () => Promise<{ status: number; body: unknown }>): Promise<Reply> {
  let result: Reply;
  try {
    const { status, body } = await answer();
    result = { status, body: body as Reply['body'] };
  } catch (error) {
    if (!(error instanceof DepositsApiError)) throw error;
    result = { status: error.httpStatus, body: error.body };
  }
  expectDocumented('deposits', 'POST', path, result.status, result.body);
  return result;
}

export interface DepositRequest {
  amount: number;
  senderID?: string;
  walletAccountID?: string;
  userInputs?: { id: string; index: number; query: string; answer: string }[];
  clientReference?: string;
  metadata?: Record<string, string>;
}

/** POST /v1/deposits/create as this user; a fresh Idempotency-Key unless one is given. */
export function startDeposit(user: TestUser, request: DepositRequest, idempotencyKey: string = randomUUID()) {
  return reply('/v1/deposits/create', () =>
    depositsClient.create(connectionOf(user), { senderID: user.accountId, ...request }, idempotencyKey),
  );
}

export function readDeposit(user: Connection, operationID: string) {
  return reply('/v1/deposits/get', () => depositsClient.get(connectionOf(user), operationID));
}

/** POST /v1/sources/create as this user; a fresh Idempotency-Key unless one is given. */
export function startSource(
  user: TestUser,
  request: { walletAccountID?: string; userInputs?: DepositRequest['userInputs'] } = {},
  idempotencyKey: string = randomUUID(),
) {
  return reply('/v1/sources/create', () =>
    depositsClient.createSource(connectionOf(user), request, idempotencyKey),
  );
}

export function readSource(user: Connection, sourceID: string) {
  return reply('/v1/sources/get', () => depositsClient.getSource(connectionOf(user), sourceID));
}

export function cancelSource(user: Connection, sourceID: string) {
  return reply('/v1/sources/cancel', () => depositsClient.cancelSource(connectionOf(user), sourceID));
}

export function listSources(user: Connection, page: { limit?: number; cursor?: string } = {}) {
  return reply('/v1/sources/list', () => depositsClient.listSources(connectionOf(user), page));
}

/** Polls the source until `stop` says so (by default: ready or failed); returns the last read. */
export function sourceWhen(
  user: TestUser,
  sourceID: string,
  stop: (source: Reply['body']) => boolean = (source) =>
    source.status === 'ready' || source.status === 'failed',
  timeoutMs = 20_000,
) {
  return eventually(async () => {
    const { body } = await readSource(user, sourceID);
    return stop(body) ? body : undefined;
  }, timeoutMs);
}

/** POST /v1/deposits/cancel as this user. */
export function cancelDeposit(user: Connection, operationID: string) {
  return reply('/v1/deposits/cancel', () => depositsClient.cancel(connectionOf(user), operationID));
}

/** POST /v1/deposits/list as this user: a page, from `cursor` when given. */
export function listDeposits(user: Connection, page: { limit?: number; cursor?: string } = {}) {
  return reply('/v1/deposits/list', () => depositsClient.list(connectionOf(user), page));
}

/** Polls the deposit until `stop` says so (by default: done or failed); returns the last read. */
export function depositWhen(
  user: TestUser,
  operationID: string,
  stop: (deposit: Reply['body']) => boolean = (deposit) =>
    deposit.status === 'done' || deposit.status === 'failed',
  timeoutMs = 20_000,
) {
  let last: Reply['body'] | undefined;
  return eventually(async () => {
    const { body } = await readDeposit(user, operationID);
    last = body;
    return stop(body) ? body : undefined;
  }, timeoutMs).catch(async (error: Error) => {
    // What it last read names where it stood, and the tables what held it there.
    const { status, step, type, msg, history } = last ?? {};
    throw new Error(
      `${error.message}: ${operationID} at ${JSON.stringify({ status, step, type, msg, history })}; stored: ${await storedState(operationID)}`,
    );
  });
}

/** The OTP answer to a deposit's pending question. */
export function otpAnswer(deposit: Reply['body'], answer = '123456') {
  return (deposit.userInputs as { id: string; index: number; query: string }[]).map((input) => ({
    ...input,
    answer,
  }));
}

/** Asks the stack's webhook receiver to refuse deliveries (`POST /fail`, `webhook-receiver.ts`): its answer. */
export function askReceiverToFail(body: { count: number; depositId?: string }) {
  return fetch(`${webhookUrl}/fail`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Has the receiver answer 500 to the next `count` deliveries of one deposit (0: accept them again). */
export async function failDeliveriesOf(depositId: string, count: number) {
  const response = await askReceiverToFail({ count, depositId });
  if (!response.ok) throw new Error(`receiver not told to fail: ${response.status}`);
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
      verifiedWith: { current: boolean; previous: boolean };
      signatures: number;
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

/** The deaths the local stack's crash points caused in this deposit's steps: proof that a crash fired. */
export async function deathsOf(depositId: string): Promise<{ point: string; step: string; at: number }[]> {
  const response = await fetch(`${depositsUrl}/_local/crash`);
  if (!response.ok) throw new Error(`crash points not read: ${response.status}`);
  const { deaths } = (await response.json()) as {
    deaths: { point: string; step: string; at: number; depositId?: string }[];
  };
  return deaths
    .filter((death) => death.depositId === depositId)
    .map(({ point, step, at }) => ({ point, step, at }));
}

/**
 * The paths of the provider calls the local stack made for this user since the last time they were
 * taken (the journal is cleared as it is read).
 */
export async function takeProviderCalls(user: Pick<TestUser, 'accessToken'>): Promise<string[]> {
  const response = await fetch(`${depositsUrl}/_local/provider-calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ accessToken: user.accessToken, clear: true }),
  });
  if (!response.ok) throw new Error(`provider calls not read: ${response.status}`);
  const { calls } = (await response.json()) as { calls: { path: string }[] };
  return calls.map((call) => call.path);
}

/**
 * The steps a deposit went through, in order. A step may record a retry of its own on a loaded machine
 * (the provider's answer slower than the stack's timeout, or its connection busy a moment): such an
 * entry stays at its step with a note saying so, and counts once here. Any other repeat is a defect.
 */
export function stepsOf(deposit: Record<string, unknown>): string[] {
  const history = deposit.history as { step: string; note?: string }[];
  return history.flatMap((entry, index) => {
    if (index === 0 || history[index - 1]?.step !== entry.step) return [entry.step];
    if (/^(provider |connection busy)/.test(entry.note ?? '')) return [];
    throw new Error(`a repeat of ${entry.step} that is no retry: ${JSON.stringify(history)}`);
  });
}

/** The notes of a deposit's history entries at `step`, in order. */
export function notesAt(deposit: Record<string, unknown>, step: string): (string | undefined)[] {
  const history = deposit.history as { step: string; note?: string }[];
  return history.filter((entry) => entry.step === step).map((entry) => entry.note);
}

/**
 * A sandbox user whose bank carries a transfer out after a second, past the v2 stack's longest hold
 * (500 ms): its transfers are read back (`reconcile`) in both dialects.
 */
export const slowTransfers = { transferDelaySeconds: 1 };

/** A request to the deposits API with whatever headers and body (raw text or JSON) the test wants. */
export async function rawCall(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<Reply> {
  const { headers = {}, body } = options;
  const response = await fetch(`${depositsUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: Reply['body'];
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`non-JSON answer ${response.status} from ${method} ${path}: ${text}`);
  }
  expectDocumented('deposits', method, path, response.status, parsed);
  return { status: response.status, body: parsed };
}
