/**
 * Fault handling, all of it: which fault a request gets, and how it is applied.
 *
 * Choosing: the fault its `X-Sandbox-*` headers describe wins; else, on a provider operation, the first
 * of the connection's rules (set by `Administration.setFaults`) whose path matches. A counted rule is
 * used up one request at a time.
 *
 * Applying:
 *   - a `before` outcome (the default) stops the request before the bank sees it: nothing happens;
 *   - latency is spent inside the operation, while it holds the connection (on a public route, before
 *     its action);
 *   - an `after` outcome loses the answer of an operation that took effect;
 *   - `timeout` hangs for `timeoutMs` (default `SANDBOX_TIMEOUT_MS`) and answers 504 GATEWAY_TIMEOUT;
 *   - `refusal` answers the failed envelope of its `type` with its 4xx `status` (and `Retry-After`
 *     when it names `retryAfterSeconds`), before effect; with `phase: after` (a rule's), after it:
 *     the request took effect and the refusal answers a repeat of it, as when a proxy retried it (an
 *     answered call then hears INVALID_OPERATION_ID); with `namesOperation`, the envelope
 *     names an operation as a failed operation's does: on the operation read, the one the body reads;
 *     on a call that creates one, a new operation, recorded as failed with the refusal (nothing else
 *     happened), so that reading it answers the same envelope;
 *   - `pending`, on the operation read only, answers `initialized` for the operation read, whatever
 *     it is (a bank that keeps a transfer running);
 *   - latency and a hang together stay within `faultWaitBudgetMs`, inside the function's own timeout, so
 *     a fault is never cut short by the gateway (a rule or header asking more is BAD_REQUEST);
 *     `error` answers its status: 500 INTERNAL_ERROR by default, 502 BAD_GATEWAY, 503 SERVICE_UNAVAILABLE.
 */
import * as z from 'zod';
import type { Clock } from '#shared/clock';
import {
  badRequest,
  EnvelopeError,
  type ErrorType,
  errorTypes,
  type NamedOperation,
  ProviderError,
} from '#shared/provider/interface/errors';
import { faultWaitBudgetMs } from '#shared/provider/interface/limits';
import {
  type FaultRule,
  FaultRuleFields,
  operationNamingPaths,
  operationReadPaths,
  withinFaultBudget,
} from '#shared/sandbox/admin-schemas';
import type { HttpAnswer } from './answer.ts';
import { type FaultedRequest, namedOperation, notNamingHere } from './fault-naming.ts';
import type { ConnectionRecord, SandboxStore } from './store.ts';

export interface FaultSettings {
  clock: Clock;
  /** How long a `timeout` fault hangs when it names no time of its own. */
  defaultTimeoutMs(): number;
  /** Told of each fault as it is injected (the handlers log it; the domain has no logger). */
  onFault?: (fault: { outcome: string | undefined; phase: 'before' | 'after' }) => void;
}

export type { FaultedRequest } from './fault-naming.ts';

/**
 * Runs one provider operation on `connection` under the fault chosen for it. `operate` is given the
 * latency to spend once the operation holds the connection.
 */
export async function runOperationWithFault(
  store: SandboxStore,
  settings: FaultSettings,
  connection: ConnectionRecord,
  request: FaultedRequest,
  operate: (latencyMs: number) => Promise<HttpAnswer>,
): Promise<HttpAnswer> {
  const fault = headerFault(request.headers) ?? (await ruleFor(store, connection, request));
  // A rule's path was checked when it was set; a header's is the request's own.
  if (fault?.namesOperation && !operationNamingPaths.includes(request.path)) {
    throw notNamingHere(request.path);
  }
  if (fault?.outcome === 'pending') {
    if (!(operationReadPaths as readonly string[]).includes(request.path)) {
      throw badRequest([
        `X-Sandbox-Fault: pending: only on ${operationReadPaths.join(', ')}, not on ${request.path}`,
      ]);
    }
    return stillRunning(settings, request);
  }
  const naming = (refusal: EnvelopeError) =>
    namedOperation(store, settings.clock, connection, request, refusal);
  return applyOutcome(settings, fault, () => operate(fault?.latencyMs ?? 0), naming);
}

/**
 * `pending`, on the operation read: the operation read answers `initialized` whatever it is, as a
 * bank that keeps a transfer running answers (a read changes nothing).
 */
function stillRunning(settings: FaultSettings, request: FaultedRequest): HttpAnswer {
  settings.onFault?.({ outcome: 'pending', phase: 'before' });
  const body = (request.body ?? {}) as Record<string, unknown>;
  const idField = typeof body.operationID === 'string' ? 'operationID' : 'jobID';
  return { status: 200, body: { [idField]: body[idField], success: true, status: 'initialized' } };
}

/** Runs the action of a public route under the fault its headers ask for; the latency comes first. */
export async function runActionWithFault(
  settings: FaultSettings,
  headers: FaultedRequest['headers'],
  action: () => Promise<HttpAnswer> | HttpAnswer,
): Promise<HttpAnswer> {
  const fault = headerFault(headers);
  // A public route reads and creates no operation of the provider's.
  if (fault?.namesOperation) throw notNamingHere('a public route');
  if (fault?.latencyMs) await settings.clock.sleep(fault.latencyMs);
  return applyOutcome(settings, fault, action);
}

/**
 * The connection's first rule for this request (its path; with `answered`, only a request that
 * answers a question); a counted rule is used up one request at a time.
 */
async function ruleFor(
  store: SandboxStore,
  connection: ConnectionRecord,
  request: FaultedRequest,
): Promise<FaultRule | undefined> {
  for (const [index, rule] of connection.faults.entries()) {
    if (rule.path !== undefined && rule.path !== request.path) continue;
    if (rule.answered && !answers(request.body)) continue;
    if (rule.remaining !== undefined && !(await store.consumeFault(connection.id, index))) continue;
    return rule;
  }
  return undefined;
}

/** Whether a request's body answers a question: it carries `userInputs`. */
function answers(body: object | undefined): boolean {
  const inputs = (body as { userInputs?: unknown } | undefined)?.userInputs;
  return Array.isArray(inputs) && inputs.length > 0;
}

/** Names the operation a refusal names (`namesOperation`), recording it when the refusal creates it. */
type Naming = (refusal: EnvelopeError) => Promise<NamedOperation | undefined>;

async function applyOutcome(
  settings: FaultSettings,
  fault: FaultRule | undefined,
  run: () => Promise<HttpAnswer> | HttpAnswer,
  naming?: Naming,
): Promise<HttpAnswer> {
  // A refusal is before effect (the bank never sees the request it refuses), unless its rule says
  // `after`: the request took effect, and what came back answers a repeat of it (a proxy's retry).
  const phase = fault?.phase ?? 'before';
  if (fault?.outcome && phase === 'before') await failAsTold(settings, fault, naming);
  const startedAt = settings.clock.now();
  const answer = await run();
  // The operation's own time (a `sync: true` request held while the bank carries it out) is part of
  // the hang that follows: the request waits no longer in all than the fault says.
  const ranMs = settings.clock.now() - startedAt - (fault?.latencyMs ?? 0);
  if (fault?.outcome && phase === 'after') await failAsTold(settings, fault, naming, Math.max(0, ranMs));
  return answer;
}

async function failAsTold(
  settings: FaultSettings,
  fault: FaultRule,
  naming?: Naming,
  waitedMs = 0,
): Promise<never> {
  settings.onFault?.({ outcome: fault.outcome, phase: fault.phase ?? 'before' });
  if (fault.outcome === 'timeout') {
    // The default hang shortened so that, after the rule's latency, the request ends inside its budget.
    const hang =
      fault.timeoutMs ?? Math.min(settings.defaultTimeoutMs(), faultWaitBudgetMs - (fault.latencyMs ?? 0));
    await settings.clock.sleep(Math.max(0, hang - waitedMs));
    throw new ProviderError('GATEWAY_TIMEOUT');
  }
  if (fault.outcome === 'refusal') {
    const type = fault.type ?? 'BAD_REQUEST';
    const msg = type === 'TOO_MANY_REQUESTS' ? 'Too many requests' : undefined;
    const headers =
      fault.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(fault.retryAfterSeconds) };
    const refusal = new EnvelopeError(
      type,
      fault.status ?? 400,
      msg ?? errorTypes[type as ErrorType].msg,
      undefined,
      headers,
    );
    if (!fault.namesOperation || !naming) throw refusal;
    const operation = await naming(refusal);
    throw new EnvelopeError(refusal.type, refusal.status, refusal.message, undefined, headers, operation);
  }
  const byStatus = { 500: 'INTERNAL_ERROR', 502: 'BAD_GATEWAY', 503: 'SERVICE_UNAVAILABLE' } as const;
  throw new ProviderError(byStatus[(fault.status ?? 500) as keyof typeof byStatus]);
}

const HeaderFault = withinFaultBudget(
  FaultRuleFields.extend({
    latencyMs: z.coerce.number().int().min(0).max(faultWaitBudgetMs).optional(),
    status: z.coerce.number().pipe(FaultRuleFields.shape.status.unwrap()).optional(),
    timeoutMs: z.coerce.number().int().min(0).max(faultWaitBudgetMs).optional(),
    retryAfterSeconds: z.coerce.number().pipe(FaultRuleFields.shape.retryAfterSeconds.unwrap()).optional(),
    namesOperation: z
      .enum(['true', 'false'])
      .transform((value) => value === 'true')
      .optional(),
  }),
);

/** A fault for this one request, from `X-Sandbox-*` headers (see docs/sandbox.md); BAD_REQUEST if malformed. */
export function headerFault(headers: FaultedRequest['headers']): FaultRule | undefined {
  const header = (name: string) => headers[`x-sandbox-${name}`];
  const raw = {
    outcome: header('fault'),
    status: header('fault-status'),
    phase: header('fault-phase'),
    latencyMs: header('latency-ms'),
    timeoutMs: header('timeout-ms'),
    type: header('fault-type'),
    retryAfterSeconds: header('retry-after-seconds'),
    namesOperation: header('names-operation'),
  };
  const present = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined));
  if (Object.keys(present).length === 0) return undefined;
  const parsed = HeaderFault.safeParse(present);
  if (!parsed.success) {
    throw new ProviderError(
      'BAD_REQUEST',
      undefined,
      parsed.error.issues.map((issue) => `X-Sandbox header ${issue.path.join('.')}: ${issue.message}`),
    );
  }
  return parsed.data;
}
