/**
 * The operator API's handler shape: middy, the failed envelope for every error, the operator's
 * identity, the JSON body validated. The identity is what API Gateway's IAM authorizer puts on the
 * event (`requestContext.authorizer.iam.userArn`; locally the gateway puts `local-operator` there
 * once the operator token matches). Without one the handler answers 401 itself (defence in depth:
 * a route left open by mistake still serves nobody). Every call leaves a line (`operatorAudit`).
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj, type Request } from '@middy/core';
import type { z } from 'zod';
import { DepositError } from '#shared/deposits/model/errors';
import { logger } from '#shared/logger';
import {
  answerOf,
  errorEnvelope,
  type HttpEvent,
  type HttpResult,
  json,
  parseApiBody,
} from '#shared/middleware/http';
import { traceInvocation } from '#shared/tracing';

export interface OperatorRouteInput<T> {
  body: T;
  /** Who acts: the operator's IAM ARN (`local-operator` on the local stack). */
  who: string;
}

/** The caller's identity as the IAM authorizer gives it, if any. */
export function operatorOf(event: HttpEvent): string | undefined {
  const context = event.requestContext as HttpEvent['requestContext'] & {
    authorizer?: { iam?: { userArn?: unknown } };
  };
  const arn = context.authorizer?.iam?.userArn;
  return typeof arn === 'string' && arn.length > 0 ? arn : undefined;
}

export function operatorRoute<S extends z.ZodType>(
  schema: S,
  action: (input: OperatorRouteInput<z.infer<S>>) => Promise<unknown>,
) {
  return (
    middy<HttpEvent, HttpResult>()
      .use(injectLambdaContext(logger))
      .use(traceInvocation())
      // Before the envelope: its `after` and `onError` run once the envelope has made the answer.
      .use(operatorAudit())
      .use(errorEnvelope())
      .handler(async (event) => {
        const who = operatorOf(event);
        if (!who) throw new DepositError('UNAUTHORIZED', 'Operator identity required');
        const body = parseApiBody(event, schema);
        const { status, body: answer } = answerOf(await action({ body, who }));
        return json(status, answer);
      })
  );
}

/**
 * One line per operator call, whatever it came to: who (the identity the authorizer verified, or
 * none), the route, the status, and for a refusal or a failure its error type (info, warn, error).
 * Never the body. Calls the authorizer refuses never reach here: the API's access log holds them,
 * with the caller's identity (`infra/constructs/topology-api.ts`).
 */
export function operatorAudit(): MiddlewareObj<HttpEvent, HttpResult> {
  const record = async (request: Request<HttpEvent, HttpResult>) => {
    const status = request.response?.statusCode ?? 500;
    const line = {
      who: operatorOf(request.event) ?? 'unidentified',
      path: request.event.rawPath,
      status,
      ...(status >= 400 ? { type: errorTypeOf(request.response) } : {}),
    };
    if (status < 400) logger.info('operator request', line);
    else if (status < 500) logger.warn('operator request refused', line);
    else logger.error('operator request failed', line);
  };
  return { after: record, onError: record };
}

function errorTypeOf(response: HttpResult | null | undefined): string {
  try {
    const type = (JSON.parse(String(response?.body)) as { type?: unknown }).type;
    return typeof type === 'string' ? type : 'unknown';
  } catch {
    return 'unknown';
  }
}
