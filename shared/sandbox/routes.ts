/**
 * The two shapes of sandbox HTTP handler, composed once so each handler file is one line of intent:
 * `connectionRoute` (bearer token and secrets, faults, one operation) and `publicRoute` (admin,
 * token exchange). Faults: latency is spent inside the operation, while it holds the connection;
 * a `before` outcome stops the request before the bank sees it, an `after` one loses the answer of
 * an operation that took effect.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { z } from 'zod';
import { logger } from '#shared/logger';
import { errorEnvelope, type HttpEvent, type HttpResult, json, parseBody } from '#shared/middleware/http';
import { ProviderError } from '#shared/spec/errors';
import { FaultRule } from '#shared/spec/schemas';
import { sandbox, timeoutFaultMs } from './runtime.ts';
import type { HttpAnswer } from './simulator.ts';
import type { ConnectionRecord } from './store.ts';

interface ConnectionInput<T> {
  body: T;
  connection: ConnectionRecord;
  latencyMs: number;
}

type Credentials = { appSecret: string; userSecret: string };

export function connectionRoute<S extends z.ZodType<Credentials>>(
  schema: S,
  operation: (input: ConnectionInput<z.infer<S>>) => Promise<HttpAnswer>,
) {
  return compose(async (event) => {
    const body = parseBody(event, schema);
    const connection = await sandbox.authenticate(
      event.headers.authorization,
      body.appSecret,
      body.userSecret,
    );
    const fault = await sandbox.faultFor(connection, event.rawPath, headerFault(event));
    return withFault(fault, () => operation({ body, connection, latencyMs: fault?.latencyMs ?? 0 }));
  });
}

export function publicRoute<S extends z.ZodType>(
  schema: S | undefined,
  action: (body: z.infer<S>, event: HttpEvent) => Promise<HttpAnswer> | HttpAnswer,
) {
  return compose(async (event) => {
    const body = schema ? parseBody(event, schema) : undefined;
    const fault = headerFault(event);
    if (fault?.latencyMs) await sleep(fault.latencyMs);
    return withFault(fault, () => action(body as z.infer<S>, event));
  });
}

function compose(answer: (event: HttpEvent) => Promise<HttpAnswer>) {
  return middy<HttpEvent, HttpResult>()
    .use(injectLambdaContext(logger))
    .use(errorEnvelope())
    .handler(async (event) => {
      const { status, body } = await answer(event);
      return json(status, body);
    });
}

async function withFault(fault: FaultRule | undefined, run: () => Promise<HttpAnswer> | HttpAnswer) {
  const phase = fault?.phase ?? 'before';
  if (fault?.outcome && phase === 'before') await failAsTold(fault);
  const answer = await run();
  if (fault?.outcome && phase === 'after') await failAsTold(fault);
  return answer;
}

async function failAsTold(fault: FaultRule): Promise<never> {
  logger.warn('sandbox fault injected', { outcome: fault.outcome, phase: fault.phase ?? 'before' });
  if (fault.outcome === 'timeout') {
    await sleep(fault.timeoutMs ?? timeoutFaultMs);
    throw new ProviderError('GATEWAY_TIMEOUT');
  }
  const byStatus = { 500: 'INTERNAL_ERROR', 502: 'BAD_GATEWAY', 503: 'SERVICE_UNAVAILABLE' } as const;
  throw new ProviderError(byStatus[fault.status ?? 500]);
}

const HeaderFault = FaultRule.extend({
  latencyMs: z.coerce.number().int().min(0).max(60_000).optional(),
  status: z.coerce.number().pipe(FaultRule.shape.status.unwrap()).optional(),
  timeoutMs: z.coerce.number().int().min(0).max(120_000).optional(),
});

/** A fault for this one request, from `X-Sandbox-*` headers (see the README). */
function headerFault(event: HttpEvent): FaultRule | undefined {
  const header = (name: string) => event.headers[`x-sandbox-${name}`];
  const raw = {
    outcome: header('fault'),
    status: header('fault-status'),
    phase: header('fault-phase'),
    latencyMs: header('latency-ms'),
    timeoutMs: header('timeout-ms'),
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
