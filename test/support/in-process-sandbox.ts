/**
 * The sandbox's HTTP API in the test's own process, for the unit tests of its rules: the same helpers
 * as `sandbox.ts` (users, calls, faults, state), answered by every route of the topology's sandbox API
 * composed as its handler composes it (`sandboxHandler`, the route's schema, the same operation or
 * administration call), given the event the local gateway would build, over the in-memory
 * `FakeSandboxStore` and a manual clock.
 *
 * The fake store is the one stand-in here, and a sanctioned one: it keeps the DynamoDB adapter's
 * conditions and conflicts (`test/unit/sandbox-fake-store.test.ts` holds it to them), so the rule
 * matrices run in milliseconds, and time moves only when a test (or a sandbox's sleep) moves it. The
 * real table, the gateway and the Lambda wiring are proven end to end, one pass per route
 * (`test/e2e/sandbox-routes.test.ts`).
 *
 * Each test file gets one sandbox (a module per file), as the e2e files shared one stack: its users are
 * its own. Its settings are the e2e stack's (`local-stack.ts`): a bank takes 400 ms, a `timeout`
 * fault hangs 1.5 s, a one-time password waits 5 minutes.
 */
import type { z } from 'zod';
import { lambdaContext } from '#infra/local/lambda-context';
import type { HttpEvent } from '#shared/middleware/http';
import { parseJsonBody, sandboxHandler } from '#shared/middleware/sandbox-route';
import { ProviderError } from '#shared/provider/interface/errors';
import * as schemas from '#shared/provider/interface/schemas';
import { ExchangeTokenRequest } from '#shared/provider/interface/schemas';
import {
  CreateSandboxUserRequest,
  SandboxUserRequest,
  SetFaultsRequest,
} from '#shared/sandbox/admin-schemas';
import type { HttpAnswer } from '#shared/sandbox/answer';
import { listBanks } from '#shared/sandbox/catalog';
import { v2Token } from '#shared/sandbox/dialect-v2/answers';
import * as v2 from '#shared/sandbox/dialect-v2/operations';
import * as v2Requests from '#shared/sandbox/dialect-v2/requests';
import { withoutEmptyResume } from '#shared/sandbox/dialect-v2/requests';
import { type FaultSettings, runActionWithFault } from '#shared/sandbox/faults';
import { newId } from '#shared/sandbox/ids';
import type { OperationContext } from '#shared/sandbox/operation-spec';
import { BalanceByRequest, getBalance } from '#shared/sandbox/operations/account-balance';
import { createBeneficiary, listBeneficiaries } from '#shared/sandbox/operations/beneficiaries';
import { getMetadata } from '#shared/sandbox/operations/metadata';
import { getOperation } from '#shared/sandbox/operations/operation-get';
import { createAutoflowTransfer, createTransfer } from '#shared/sandbox/operations/transfers';
import { Sandbox, type SandboxOptions } from '#shared/sandbox/sandbox';
import { digest } from '#shared/secrets';
import { type HandlerName, sandboxApi } from '#shared/topology';
import { FakeSandboxStore } from './fake-sandbox-store.ts';
import { ManualClock } from './manual-clock.ts';
import { appSecret, faultSetter, type Reply, replyOf, userMaker } from './sandbox-users.ts';

/** The e2e stack's settings (`local-stack.ts` and the defaults of `sandboxConfig`). */
export const localSandboxOptions: SandboxOptions = {
  defaultAppSecretDigest: digest(appSecret),
  asyncDelayMs: 400,
  inputTtlMs: 300_000,
  lockMs: 30_000,
  accessCodeTtlMs: 600_000,
  timeoutFaultMs: 1_500,
};

export const store = new FakeSandboxStore();
export const clock = new ManualClock();
export const sandbox = new Sandbox(store, localSandboxOptions, clock);

/** Faults on the public routes, on the same clock. */
const publicFaults: FaultSettings = { clock, defaultTimeoutMs: () => localSandboxOptions.timeoutFaultMs };

type Answer = (event: HttpEvent) => Promise<HttpAnswer>;
type Credentials = { appSecret: string; userSecret: string };

/** As `shared/wiring/sandbox.ts`'s `connectionRoute`, over this file's sandbox. */
function connectionRoute<S extends z.ZodType<Credentials>>(
  schema: S,
  operation: (context: OperationContext, body: z.infer<S>) => Promise<HttpAnswer>,
): Answer {
  return async (event) => {
    const body = parseJsonBody(event, schema);
    const { appSecret, userSecret } = body;
    const request = { path: event.rawPath, headers: event.headers, body, appSecret, userSecret };
    return sandbox.operate(request, (context) => operation(context, body));
  };
}

/** As `shared/middleware/sandbox-route.ts`'s `publicRoute`, with its faults on this file's clock. */
function publicRoute<S extends z.ZodType>(
  schema: S | undefined,
  action: (body: z.infer<S>, event: HttpEvent) => Promise<HttpAnswer> | HttpAnswer,
): Answer {
  return async (event) => {
    const body = schema ? parseJsonBody(event, schema) : undefined;
    return runActionWithFault(publicFaults, event.headers, () => action(body as z.infer<S>, event));
  };
}

/** Each handler of `functions/sandbox/`, by its name, as it is composed there. */
const handlers: Record<string, Answer> = {
  'applications-create': publicRoute(undefined, () => sandbox.administration.createApplication()),
  'balance-get': connectionRoute(withoutEmptyResume(BalanceByRequest), getBalance),
  'banks-list': publicRoute(undefined, () => listBanks()),
  'beneficiaries-create': connectionRoute(schemas.CreateBeneficiaryRequest, createBeneficiary),
  'beneficiaries-get': connectionRoute(schemas.ListBeneficiariesRequest, listBeneficiaries),
  'exchange-token': publicRoute(ExchangeTokenRequest, (body) => sandbox.administration.exchangeToken(body)),
  'faults-set': publicRoute(SetFaultsRequest, (body) => sandbox.administration.setFaults(body)),
  health: publicRoute(undefined, () => ({ status: 200, body: { status: 'ok' } })),
  'metadata-get': connectionRoute(schemas.MetadataRequest, getMetadata),
  'not-found': publicRoute(undefined, (_body, event) => {
    throw new ProviderError('NOT_FOUND', `No route for ${event.requestContext.http.method} ${event.rawPath}`);
  }),
  'operation-get-v1': connectionRoute(schemas.OperationGetRequest, getOperation),
  'operation-get': connectionRoute(schemas.OperationGetRequest, getOperation),
  'transfer-autoflow': connectionRoute(schemas.AutoflowTransferRequest, createAutoflowTransfer),
  'transfer-create': connectionRoute(schemas.TransferRequest, createTransfer),
  'users-create': publicRoute(CreateSandboxUserRequest, (body) => sandbox.administration.createUser(body)),
  'users-get': publicRoute(SandboxUserRequest, (body) => sandbox.administration.getUser(body)),
  'v2-beneficiaries-create': connectionRoute(v2Requests.V2CreateBeneficiaryRequest, v2.v2CreateBeneficiary),
  'v2-beneficiaries-get': connectionRoute(v2Requests.V2ListBeneficiariesRequest, v2.v2ListBeneficiaries),
  'v2-exchange-token': publicRoute(ExchangeTokenRequest, async (body) =>
    v2Token(await sandbox.administration.exchangeToken(body), body.connectionID, {
      tokenID: newId('tok'),
      operationID: newId('op'),
    }),
  ),
  'v2-metadata-get': connectionRoute(v2Requests.V2MetadataRequest, v2.v2GetMetadata),
  'v2-transfer-autoflow': connectionRoute(v2Requests.V2AutoflowRequest, v2.v2Autoflow),
  'v2-transfer-create': connectionRoute(v2Requests.V2TransferRequest, v2.v2CreateTransfer),
};

/** A sandbox handler's name without its group (`sandbox-<name>`, the module `functions/sandbox/<name>.ts`). */
const nameOf = (handler: HandlerName) => handler.replace(/^sandbox-/, '');

function composed(handler: HandlerName) {
  const answer = handlers[nameOf(handler)];
  if (!answer) throw new Error(`no in-process handler for ${handler}: add it beside the others`);
  return { name: nameOf(handler), invoke: sandboxHandler(answer) };
}

/** The topology's routes, each to its handler composed in process; anything else to `not-found`. */
const routes = new Map(
  sandboxApi.routes.map((route) => [`${route.method} ${route.path}`, composed(route.handler)]),
);
const fallback = composed(sandboxApi.defaultHandler);

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** A request as the gateway would pass it to its handler: the answer's status, headers and text. */
export async function rawRequest(
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<RawReply> {
  const url = new URL(path, 'http://sandbox.local');
  const route = routes.get(`${method} ${url.pathname}`) ?? fallback;
  const lowered = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const requestId = newId('req');
  const event = {
    version: '2.0',
    routeKey: route === fallback ? '$default' : `${method} ${url.pathname}`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers: lowered,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: 'sandbox.local',
      domainPrefix: 'local',
      http: { method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: '' },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: new Date(clock.now()).toUTCString(),
      timeEpoch: clock.now(),
    },
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: false,
  } as HttpEvent;
  const result = await route.invoke(event, lambdaContext(`sandbox-${route.name}`));
  const answerHeaders = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
  return { status: result.statusCode ?? 200, headers: answerHeaders, text: result.body ?? '' };
}

/** As `sandbox.ts`'s `request`: JSON in and out, each answer of a documented route held to its schema. */
export async function request(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const raw = await rawRequest(method, path, text, { 'content-type': 'application/json', ...headers });
  return replyOf(method, path, raw.status, raw.text);
}

export const post = (path: string, body?: unknown, headers?: Record<string, string>) =>
  request('POST', path, body, headers);

export const createUser = userMaker(post);
export const setFaults = faultSetter(post);

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

/**
 * Polls `check` until it gives a value, the sandbox's clock moved `stepMs` between tries (no real
 * time passes): fails once `timeoutMs` of the clock's time has gone by.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  stepMs = 100,
): Promise<T> {
  const deadline = clock.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (clock.now() > deadline) throw new Error('condition not met in time');
    clock.advance(stepMs);
  }
}
