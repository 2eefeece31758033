/**
 * The sandbox's HTTP handlers, composed once: `publicRoute` (health, banks, administration, token
 * exchange, not found) validates the body, runs one action under the fault the request's headers ask
 * for, and answers JSON; every error becomes the spec's failed envelope. Nothing here reads the
 * application secret or the table, so the handlers that need neither load neither.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { z } from 'zod';
import { systemClock } from '#shared/clock';
import { sandboxConfig } from '#shared/config';
import { logger } from '#shared/logger';
import { errorEnvelope, type HttpEvent, type HttpResult, json, parseBody } from '#shared/middleware/http';
import { badRequest } from '#shared/provider/interface/errors';
import type { HttpAnswer } from '#shared/sandbox/answer';
import { type FaultSettings, runActionWithFault } from '#shared/sandbox/faults';
import { traceInvocation } from '#shared/tracing';

/** Read only when a `timeout` fault names no time of its own. */
const publicFaults: FaultSettings = {
  clock: systemClock,
  defaultTimeoutMs: () => sandboxConfig().SANDBOX_TIMEOUT_MS,
  onFault: logFault,
};

/** The line each injected fault leaves in the handler's log. */
export function logFault(fault: { outcome: string | undefined; phase: 'before' | 'after' }) {
  logger.warn('sandbox fault injected', fault);
}

export function publicRoute<S extends z.ZodType>(
  schema: S | undefined,
  action: (body: z.infer<S>, event: HttpEvent) => Promise<HttpAnswer> | HttpAnswer,
) {
  return sandboxHandler(async (event) => {
    const body = schema ? parseJsonBody(event, schema) : undefined;
    return runActionWithFault(publicFaults, event.headers, () => action(body as z.infer<S>, event));
  });
}

/**
 * A request body, as the spec sends it: with `Content-Type: application/json` (parameters such as a
 * charset allowed), else BAD_REQUEST naming the header; then parsed and validated by its schema.
 */
export function parseJsonBody<S extends z.ZodType>(event: HttpEvent, schema: S): z.infer<S> {
  const contentType = event.headers?.['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(contentType.trim())) {
    throw badRequest(['Content-Type header: must be application/json']);
  }
  return parseBody(event, schema);
}

/** The middy composition of every sandbox handler: Lambda context in the logs, errors as envelopes. */
export function sandboxHandler(answer: (event: HttpEvent) => Promise<HttpAnswer>) {
  return middy<HttpEvent, HttpResult>()
    .use(injectLambdaContext(logger))
    .use(traceInvocation())
    .use(errorEnvelope())
    .handler(async (event) => {
      const { status, body } = await answer(event);
      return json(status, body);
    });
}
