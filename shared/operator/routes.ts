/**
 * The operator API's handler shape: middy, the failed envelope for every error, the operator's
 * identity, the JSON body validated. The identity is what API Gateway's IAM authorizer puts on the
 * event (`requestContext.authorizer.iam.userArn`; locally the gateway puts `local-operator` there
 * once the operator token matches). Without one the handler answers 401 itself (defence in depth:
 * a route left open by mistake still serves nobody).
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { z } from 'zod';
import { DepositError } from '#shared/deposits/errors';
import { logger } from '#shared/logger';
import { errorEnvelope, type HttpEvent, type HttpResult, json, parseBody } from '#shared/middleware/http';

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
  action: (input: OperatorRouteInput<z.infer<S>>) => Promise<{ status: number; body: unknown }>,
) {
  return middy<HttpEvent, HttpResult>()
    .use(injectLambdaContext(logger))
    .use(errorEnvelope())
    .handler(async (event) => {
      const who = operatorOf(event);
      if (!who) throw new DepositError('UNAUTHORIZED', 'Operator identity required');
      const body = parseBody(event, schema);
      const { status, body: answer } = await action({ body, who });
      if (status === 200) logger.info('operator request', { who, path: event.rawPath });
      return json(status, answer);
    });
}
