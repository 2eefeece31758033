/**
 * The `$default` route of the deposits and operator APIs: any method and path their routes do not
 * serve, answered with what the caller likely meant. A known path with another method is 405
 * METHOD_NOT_ALLOWED naming the method it takes (and `Allow`); a known path with a trailing slash, or
 * in other letter case, is 404 NOT_FOUND naming the route without it; anything else, 404 NOT_FOUND.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { logger } from '#shared/logger';
import { depositErrorAnswers } from '#shared/middleware/api-errors';
import { errorEnvelope, type HttpEvent, type HttpResult } from '#shared/middleware/http';
import { EnvelopeError, ProviderError } from '#shared/provider/interface/errors';
import { traceInvocation } from '#shared/tracing';

export interface KnownRoute {
  method: string;
  path: string;
}

/** What a request that matched no route is answered: the refusal, with a hint when one fits. */
export function unmatched(routes: readonly KnownRoute[], method: string, path: string): EnvelopeError {
  const asked = `${method} ${path.slice(0, 200)}`;
  const methods = routes.filter((route) => route.path === path).map((route) => route.method);
  if (methods.length > 0) {
    const msg = `${asked}: this route takes ${methods.join(' or ')}, not ${method}`;
    const { status } = depositErrorAnswers.METHOD_NOT_ALLOWED;
    return new EnvelopeError('METHOD_NOT_ALLOWED', status, msg, undefined, { allow: methods.join(', ') });
  }
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  const near = routes.find((route) => route.path.toLowerCase() === trimmed.toLowerCase());
  if (near) {
    const how = trimmed !== path ? 'without the trailing slash' : 'in these letters';
    return new ProviderError(
      'NOT_FOUND',
      `No route for ${asked}: did you mean ${near.method} ${near.path} (${how})?`,
    );
  }
  return new ProviderError('NOT_FOUND', `No route for ${asked}`);
}

/** The `$default` handler of an API whose routes are `routes`. */
export function notFoundRoute(routes: readonly KnownRoute[]) {
  return middy<HttpEvent, HttpResult>()
    .use(injectLambdaContext(logger))
    .use(traceInvocation())
    .use(errorEnvelope())
    .handler(async (event) => {
      throw unmatched(routes, event.requestContext.http.method, event.rawPath);
    });
}
