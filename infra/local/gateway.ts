/**
 * A local HTTP API: turns each request into an API Gateway HTTP API (payload 2.0) event, invokes the
 * same handler module Lambda would, and writes its result back. Routes come from the topology.
 * The 1 MiB body limit is the handlers' own (shared/middleware/http.ts), as in AWS; the gateway only
 * stops reading at Lambda's own invocation limit (6 MB), where AWS would not invoke the function.
 * Locally each API also serves its contract: `GET /openapi.json` and the reference page `/docs`.
 * An API behind IAM in AWS (the operator API) requires a bearer token here instead: the gateway
 * plays the IAM authorizer, and puts the local operator's identity on the event as AWS would.
 * Before anything else, a request whose Host is not the gateway's own address is refused (421
 * WRONG_HOST, against DNS rebinding: host-guard.ts); the local controls take only JSON bodies.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { contracts } from '#shared/contracts/contracts';
import { withOwnLogger } from '#shared/logger';
import type { ApiSpec } from '#shared/topology';
import { operatorLogLevel, type RequestDone, sayRequest } from './activity.ts';
import { serveContract } from './docs.ts';
import { loadHandler } from './handlers.ts';
import { hostAllowed, reachableHost } from './host-guard.ts';
import { lambdaContext } from './lambda-context.ts';
import { localCallerOf } from './local-caller.ts';
import { localBody, writeEnvelope } from './refusals.ts';
import { inInvocation } from './traces.ts';

type Handler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** Lambda's synchronous invocation payload limit: AWS refuses larger requests before the handler. */
const MAX_INVOCATION_BYTES = 6 * 1024 * 1024;

export interface Gateway {
  url: string;
  close(): Promise<void>;
}

/** The port an API was to listen on is taken by another process. */
export class PortInUseError extends Error {
  constructor(
    readonly api: string,
    readonly port: number,
  ) {
    super(`port ${port} (the ${api} API) is already in use`);
    this.name = 'PortInUseError';
  }
}

/** Fails with PortInUseError when `port` cannot be listened on (0, any free port, always can). */
export async function ensurePortFree(api: string, host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((free, failed) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      failed(error.code === 'EADDRINUSE' ? new PortInUseError(api, port) : error),
    );
    probe.listen(port, host, () => probe.close(() => free()));
  });
}

/** Routes that exist only on the local stack (test controls), answered with JSON. */
export type LocalRoutes = Map<string, (body: unknown) => Promise<{ status: number; body: unknown }>>;

export interface GatewayOptions {
  /**
   * Every route (and `$default`) requires `Authorization: Bearer <token>` of one of these, else 401
   * and the handler never runs; with it, the event carries that token's IAM identity `identity`, as
   * API Gateway's IAM authorizer puts it (`requestContext.authorizer.iam.userArn`).
   */
  requireToken?: readonly { token: string; identity: string }[];
  /** Public files served before the routes and before the token (the operator console's page). */
  page?: (method: string, path: string, response: ServerResponse) => Promise<boolean>;
  /**
   * Its calls are audited (the operator API's): their request lines, and the handlers' audit lines of
   * the calls that succeeded, are said only with LOG_AUDIT=1 (`activity.ts`).
   */
  audited?: boolean;
}

/** The same token, compared in constant time (digests, so the lengths never show). */
function sameToken(sent: string | undefined, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return sent !== undefined && timingSafeEqual(digest(sent), digest(expected));
}

export async function startGateway(
  api: ApiSpec,
  host: string,
  port: number,
  localRoutes: LocalRoutes = new Map(),
  options: GatewayOptions = {},
): Promise<Gateway> {
  const routes = new Map<string, { routeKey: string; name: string; handler: Handler }>();
  for (const route of api.routes) {
    const routeKey = `${route.method} ${route.path}`;
    routes.set(routeKey, {
      routeKey,
      name: route.handler,
      handler: await loadHandler<Handler>(route.handler),
    });
  }
  const fallback = {
    routeKey: '$default',
    name: api.defaultHandler,
    handler: await loadHandler<Handler>(api.defaultHandler),
  };

  // The port is known once listening (0 takes any free one); no request comes before.
  const listening = { host, port };
  // A request without Host reaches the guard (Node would refuse it with a bare 400 of its own).
  const server = createServer({ requireHostHeader: false }, (request, response) => {
    const requestId = randomUUID();
    const done: RequestDone = {
      method: request.method ?? 'GET',
      path: new URL(request.url ?? '/', 'http://local').pathname,
      status: 0,
      requestId,
      startedAt: performance.now(),
    };
    serve(request, response, done)
      .catch((error: unknown) => {
        writeEnvelope(response, 500, 'INTERNAL_ERROR', `Local gateway error: ${String(error)}`, requestId);
      })
      .finally(() => {
        // One line per request answered; the contract's pages and the console's files are not requests of the API.
        done.status = response.statusCode;
        if (!served.has(response)) sayRequest(api.name, done, { audited: options.audited === true });
      });
  });
  /** The answers that were files (the reference page, the console's page): no request line. */
  const served = new WeakSet<ServerResponse>();

  async function serve(request: IncomingMessage, response: ServerResponse, done: RequestDone) {
    const { requestId } = done;
    if (!hostAllowed(request.headers.host, listening)) {
      const own = `${reachableHost(host)}:${listening.port}`;
      writeEnvelope(
        response,
        421,
        'WRONG_HOST',
        `Host not allowed: the local stack answers only at its own address (http://${own})`,
        requestId,
      );
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size <= MAX_INVOCATION_BYTES) chunks.push(chunk as Buffer);
    }
    if (size > MAX_INVOCATION_BYTES) {
      writeEnvelope(response, 413, 'PAYLOAD_TOO_LARGE', 'Request body is too large', requestId);
      return;
    }
    const url = new URL(request.url ?? '/', 'http://local');
    const method = request.method ?? 'GET';
    const contract = contracts[api.name];
    if (contract && (await serveContract(contract, method, url.pathname, request.headers.host, response))) {
      served.add(response);
      return;
    }
    if (options.page && (await options.page(method, url.pathname, response))) {
      served.add(response);
      return;
    }
    const access = options.requireToken;
    let identity: string | undefined;
    if (access) {
      const sent = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization?.trim() ?? '')?.[1];
      // Every token compared, whichever matches.
      identity = access.filter((one) => sameToken(sent, one.token))[0]?.identity;
      if (!identity) {
        writeEnvelope(response, 401, 'UNAUTHORIZED', 'Operator token required', requestId);
        return;
      }
    }
    const local = localRoutes.get(`${method} ${url.pathname}`);
    if (local) {
      const body = localBody(request, chunks);
      if ('refusal' in body) {
        const { status, type, msg, details } = body.refusal;
        writeEnvelope(response, status, type, msg, requestId, details);
        return;
      }
      const answer = await local(body.value);
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
      return;
    }
    const route = routes.get(`${method} ${url.pathname}`) ?? fallback;
    done.unrouted = route === fallback;
    const event = toEvent(
      request,
      url,
      route.routeKey,
      chunks.length ? Buffer.concat(chunks).toString('utf8') : undefined,
      requestId,
      identity,
    );
    // The deposits API's caller, where its authorizer would put it in AWS (`local-caller.ts`).
    const caller = localCallerOf(api.name, request.headers);
    if ('refusal' in caller) {
      const { status, type, msg, details } = caller.refusal;
      writeEnvelope(response, status, type, msg, requestId, details);
      return;
    }
    if (caller.authorizer) Object.assign(event.requestContext, { authorizer: caller.authorizer });
    // Its own logger (handlers share this process): the service its stack names in AWS.
    const service = api.name === 'sandbox' ? 'sandbox' : 'deposits';
    const context = lambdaContext(`${api.name}-${route.name}`);
    const result = await inInvocation(context, () =>
      withOwnLogger(service, () => route.handler(event, context), quieter(options.audited)),
    );
    response.writeHead(result.statusCode ?? 200, {
      'content-type': 'application/json',
      ...stringHeaders(result.headers),
    });
    response.end(
      result.body === undefined ? '' : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8'),
    );
  }

  await new Promise<void>((ready, failed) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      failed(error.code === 'EADDRINUSE' ? new PortInUseError(api.name, port) : error),
    );
    server.listen(port, host, ready);
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  listening.port = actualPort;
  return {
    url: `http://${reachableHost(host)}:${actualPort}`,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** An audited API's handlers log at WARN unless its audit lines are asked for (LOG_AUDIT=1). */
function quieter(audited: boolean | undefined) {
  const logLevel = audited ? operatorLogLevel() : undefined;
  return logLevel ? { logLevel } : {};
}

function toEvent(
  request: IncomingMessage,
  url: URL,
  routeKey: string,
  body: string | undefined,
  requestId: string,
  identity?: string,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query = Object.fromEntries(url.searchParams);
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
      ...(identity ? { authorizer: iamAuthorizer(identity) } : {}),
    },
    ...(body === undefined ? {} : { body }),
    isBase64Encoded: false,
  };
}

/** What API Gateway's IAM authorizer puts on the event (`APIGatewayProxyEventV2WithIAMAuthorizer`). */
function iamAuthorizer(userArn: string) {
  return {
    iam: {
      accessKey: 'local',
      accountId: '000000000000',
      callerId: userArn,
      cognitoIdentity: null,
      principalOrgId: null,
      userArn,
      userId: userArn,
    },
  };
}

function stringHeaders(headers: APIGatewayProxyStructuredResultV2['headers']): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name, String(value)]));
}
