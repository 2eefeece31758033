/**
 * The deposits API's handler shape: middy, the failed envelope for every error, the JSON body
 * validated (`parseApiBody`: JSON only, unknown fields refused), who calls, and the caller's bearer
 * token (the provider access token of the user's connection).
 *
 * Who calls, the backend (`backendOf`): the identity API Gateway's authorizer verified, an IAM
 * principal (SigV4) or a JWT's subject and client; on the local stack its gateway's caller
 * (`X-Local-Caller`, `local-backend` by default), which only the local gateway can put on the event.
 * A deposit belongs to the backend that created it (`shared/deposits/requests/caller.ts`).
 *
 * The connection's token: `X-Provider-Authorization: Bearer <token>` when sent, else
 * `Authorization: Bearer <token>`; but behind an authorizer (in AWS: IAM or JWT) `Authorization` is
 * the wallet backend's own identity, never the user's token: it must never reach the provider, so
 * there the token must come in `X-Provider-Authorization`. A create needs it (`depositRoute`); the
 * reads, the cancel and the answer take it when sent, to narrow to that connection (`ownerRoute`).
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { z } from 'zod';
import { IdempotencyKey } from '#shared/contracts/deposits-schemas';
import { DepositError } from '#shared/deposits/model/errors';
import { logger } from '#shared/logger';
import {
  answerOf,
  errorEnvelope,
  type HttpEvent,
  type HttpResult,
  invalidRequest,
  json,
  parseApiBody,
} from '#shared/middleware/http';
import { inputLimits, isOverLongAuthorization } from '#shared/provider/interface/limits';
import { traceInvocation } from '#shared/tracing';

export interface DepositRouteInput<T> {
  body: T;
  accessToken: string;
  /** The backend's identity (`backendOf`), when the request carries one. */
  backend: string | undefined;
  event: HttpEvent;
}

/** A route a backend may call by its own identity: the connection's token only when sent. */
export interface OwnerRouteInput<T> {
  body: T;
  caller: { backend: string | undefined; accessToken: string | undefined };
  event: HttpEvent;
}

/** A route that needs the user's connection (a create): its token is required. */
export function depositRoute<S extends z.ZodType>(
  schema: S,
  action: (input: DepositRouteInput<z.infer<S>>) => Promise<unknown>,
) {
  return handlerOf(async (event) => {
    const body = parseApiBody(event, schema);
    const accessToken = connectionTokenOf(event);
    if (!accessToken) throw new DepositError('UNAUTHORIZED', missingTokenMessage(event));
    return action({ body, accessToken, backend: backendOf(event), event });
  });
}

/**
 * A route a backend calls by its own identity (get, list, cancel, answer): the connection's token is
 * taken when sent, and then narrows what the caller sees to that connection. With neither a backend
 * identity nor a token there is nobody to answer: 401.
 */
export function ownerRoute<S extends z.ZodType>(
  schema: S,
  action: (input: OwnerRouteInput<z.infer<S>>) => Promise<unknown>,
) {
  return handlerOf(async (event) => {
    const body = parseApiBody(event, schema);
    const accessToken = connectionTokenOf(event);
    const backend = backendOf(event);
    if (!backend && !accessToken) throw new DepositError('UNAUTHORIZED', missingTokenMessage(event));
    return action({ body, caller: { backend, accessToken }, event });
  });
}

function handlerOf(run: (event: HttpEvent) => Promise<unknown>) {
  return middy<HttpEvent, HttpResult>()
    .use(injectLambdaContext(logger))
    .use(traceInvocation())
    .use(errorEnvelope())
    .handler(async (event) => {
      const { status, body } = answerOf(await run(event));
      return json(status, body);
    });
}

type Authorizer = {
  iam?: { userArn?: unknown };
  jwt?: { claims?: Record<string, unknown> };
  lambda?: { localCaller?: unknown };
};

function authorizerOf(event: HttpEvent): Authorizer | undefined {
  const context = event.requestContext as HttpEvent['requestContext'] & { authorizer?: Authorizer };
  return context.authorizer ?? undefined;
}

/** Whether API Gateway's own authorizer (IAM or JWT) verified the caller: in AWS, always. */
function behindAuthorizer(event: HttpEvent): boolean {
  const authorizer = authorizerOf(event);
  return Boolean(authorizer?.iam || authorizer?.jwt);
}

/**
 * The backend's identity, as the authorizer verified it: `iam:<principal>` (an assumed role's ARN
 * without its session name, which each of the backend's sessions names anew), `jwt:<sub>|<client>`
 * (`client_id`, `azp` or `cid`, whichever the issuer sets), or on the local stack `local:<caller>`
 * (its gateway's `X-Local-Caller`). Undefined when the event carries none.
 */
export function backendOf(event: HttpEvent): string | undefined {
  const authorizer = authorizerOf(event);
  const arn = authorizer?.iam?.userArn;
  if (typeof arn === 'string' && arn.length > 0) return `iam:${principalOf(arn)}`;
  const claims = authorizer?.jwt?.claims;
  if (claims && typeof claims.sub === 'string' && claims.sub.length > 0) {
    const client = [claims.client_id, claims.azp, claims.cid].find((value) => typeof value === 'string');
    return `jwt:${claims.sub}|${client ?? ''}`;
  }
  const local = authorizer?.lambda?.localCaller;
  if (typeof local === 'string' && local.length > 0) return `local:${local}`;
  return undefined;
}

/** An IAM principal's ARN, an assumed role's without its session: `...:assumed-role/<role>`. */
export function principalOf(arn: string): string {
  const assumed = /^(arn:[^:]+:sts::\d+:assumed-role\/[^/]+)\/.+$/.exec(arn);
  return assumed?.[1] ?? arn;
}

/** The header that carries the user's provider token: never the backend's own `Authorization`. */
function connectionTokenOf(event: HttpEvent): string | undefined {
  const provider = event.headers['x-provider-authorization'];
  if (provider !== undefined) return bearerOf(provider, 'X-Provider-Authorization');
  if (behindAuthorizer(event)) return undefined;
  const authorization = event.headers.authorization;
  return authorization === undefined ? undefined : bearerOf(authorization, 'Authorization');
}

/** `Bearer <token>`'s token; a header in another shape is refused with what is wrong with it. */
function bearerOf(value: string, header: string): string {
  if (isOverLongAuthorization(value)) {
    throw invalidRequest([`${header} header: at most ${inputLimits.bearerToken} characters`]);
  }
  const token = /^Bearer\s+(\S+)$/i.exec(value.trim())?.[1];
  if (token) return token;
  const scheme = /^(\S+)\s+\S/.exec(value.trim())?.[1];
  const hint = !value.trim()
    ? 'it is empty'
    : scheme
      ? `its scheme is ${scheme.slice(0, 20)}, not Bearer`
      : "the 'Bearer ' before the token is missing";
  throw new DepositError('UNAUTHORIZED', `${header} must be 'Bearer <accessToken>': ${hint}`);
}

function missingTokenMessage(event: HttpEvent): string {
  return behindAuthorizer(event)
    ? 'X-Provider-Authorization: Bearer <access token> is required'
    : "The user's connection is required: send Authorization: Bearer <accessToken> (or X-Provider-Authorization)";
}

/** The request's `Idempotency-Key` header, required on the create routes. */
export function idempotencyKeyOf(event: HttpEvent): string {
  const key = IdempotencyKey.safeParse(event.headers['idempotency-key']);
  if (!key.success) {
    throw invalidRequest(['Idempotency-Key header: required, 1 to 255 printable characters']);
  }
  return key.data;
}
