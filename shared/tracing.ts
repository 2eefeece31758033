/**
 * Tracing: Powertools Tracer (X-Ray), created once per process, and a deposit's one trace.
 *
 * A deposit keeps the trace its create started in (`Deposit.trace`, an X-Ray trace header): every
 * step message carries it (in its body, `messageFor`, which a schedule's message keeps too, and as
 * the SQS message's `AWSTraceHeader`, with which X-Ray links a consumer's trace to it), and the outbox
 * relay puts it on the webhook's message. A consumer works each record inside its deposit's scope
 * (`withDepositTrace`): a subsegment annotated with the deposit id, log lines keyed with the deposit
 * id and the trace id, and the messages it sends carrying that trace. So in X-Ray a deposit is one
 * search (`annotation.depositId`), and in the logs one key (`trace_id`), across every function.
 *
 * Outside Lambda the Tracer is off (Powertools' own rule) and a subsegment is just the work; the
 * scope, the log keys and the headers work the same everywhere (the local stack gives each
 * invocation its own trace id, as Lambda does).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { getXrayTraceDataFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { withLogKeys } from '#shared/logger';

/**
 * The process's one tracer (its service: `POWERTOOLS_SERVICE_NAME`, set by the stacks). Not every
 * HTTP request captured: a URL may carry what is not ours to record (a webhook's own token in its
 * path or query); the provider's calls are captured by their path alone (`tracedFetch`).
 */
export const tracer = new Tracer({ captureHTTPsRequests: false });

/**
 * The middy middleware of every function: its segment's subsegment, annotated with the cold start and
 * the service. Never the response as metadata: a sandbox's answers and a deposit's view are the
 * caller's, and some hold tokens.
 */
export const traceInvocation = () => captureLambdaHandler(tracer, { captureResponse: false });

/** `Root=1-<8 hex>-<24 hex>`, then `;Parent=<16 hex>` and `;Sampled=<0|1|?>` when given. */
const HEADER =
  /^Root=(1-[0-9a-f]{8}-[0-9a-f]{24})((?:;(?:Parent=[0-9a-f]{16}|Sampled=[01?]|Lineage=[0-9a-f:]{1,40}))*)$/;

/**
 * A trace header as we keep and send it (`Root=…;Parent=…;Sampled=…`), or undefined when `value` is
 * not one: a header from a message is input like any other.
 */
export function traceHeaderOf(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 256) return undefined;
  const match = HEADER.exec(value.replaceAll(' ', ''));
  if (!match) return undefined;
  const fields = (match[2] ?? '').split(';').filter((field) => /^(Parent|Sampled)=/.test(field));
  return [`Root=${match[1]}`, ...fields].join(';');
}

/** The trace id of a header: `1-5759e988-bd862e3fe1be46a994272793`. */
export function traceIdOf(header: string): string {
  return header.slice('Root='.length).split(';')[0] ?? '';
}

/** The invocation's own trace: Lambda's (its runtime's store, or `_X_AMZN_TRACE_ID`). */
function invocationTrace(): string | undefined {
  const data = getXrayTraceDataFromEnv();
  if (!data?.Root) return undefined;
  return traceHeaderOf(
    [`Root=${data.Root}`, data.Parent && `Parent=${data.Parent}`, data.Sampled && `Sampled=${data.Sampled}`]
      .filter(Boolean)
      .join(';'),
  );
}

const scope = new AsyncLocalStorage<{ header: string | undefined }>();

/** The trace the current work belongs to: its deposit's inside `withDepositTrace`, else the invocation's. */
export function currentTrace(): string | undefined {
  const inScope = scope.getStore();
  return inScope ? inScope.header : invocationTrace();
}

/** Told of each deposit a function works on, and in which trace (the local stack's journal). */
export type DepositTraceHook = (entry: { depositId: string; trace: string | undefined }) => void;
const hooks: DepositTraceHook[] = [];

/** Local tools only: no handler registers one. */
export function onDepositTrace(hook: DepositTraceHook): void {
  hooks.push(hook);
}

/** Annotates the current segment with the deposit a function works on (a route's one deposit). */
export function annotateDeposit(depositId: string): void {
  if (tracer.isTracingEnabled()) tracer.putAnnotation('depositId', depositId);
  const trace = currentTrace();
  for (const hook of hooks) hook({ depositId, trace });
}

/**
 * Works on one deposit in its trace (`header`, else the current one): the messages sent meanwhile
 * carry it, the log lines name the deposit and the trace id, and in X-Ray the work is a subsegment
 * annotated with the deposit id.
 */
export function withDepositTrace<T>(
  depositId: string,
  header: string | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const trace = header ?? currentTrace();
  const keys = { depositId, ...(trace ? { trace_id: traceIdOf(trace) } : {}) };
  return scope.run({ header: trace }, () =>
    withLogKeys(keys, () =>
      subsegment('## deposit', async () => {
        annotateDeposit(depositId);
        return work();
      }),
    ),
  );
}

/**
 * `work` as a subsegment named `name` of the current segment (a provider call, a deposit's record),
 * its error recorded; just `work` where tracing is off.
 */
export function subsegment<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!tracer.isTracingEnabled() || !tracer.getSegment()) return work();
  return tracer.provider.captureAsyncFunc(name, async (segment) => {
    try {
      return await work();
    } catch (error) {
      segment?.addError(error as Error);
      throw error;
    } finally {
      segment?.close();
    }
  }) as Promise<T>;
}

/**
 * A fetch whose every call is a subsegment named by `nameOf` (the provider's path: `provider
 * /v2/payment/transfer/create`); Powertools' own capture of the request (host, status) nests in it.
 */
export function tracedFetch(nameOf: (url: string) => string, base?: typeof fetch): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    return subsegment(nameOf(url), () => (base ?? globalThis.fetch)(input, init));
  };
}
