/**
 * The console's local server (`npm run console`): serves the page, and forwards the page's
 * `POST /v1/ops/...` calls to a deployed operator API, signed with SigV4 (service `execute-api`) with
 * the operator's own AWS credentials. The browser holds no credentials: whatever `Authorization` it
 * sends is dropped, and the upstream request is built from the method, path and body alone.
 *
 * It listens on 127.0.0.1 only, and since anything on this machine, a web page in another tab too,
 * could reach it, it signs only requests that carry the token it made at its start
 * (`Authorization: Bearer <token>`: the page takes it from the fragment of the link the command
 * prints, as the local stack's page does, and it never travels upstream; another process or page
 * does not know it), name it as their host (no DNS rebinding), come from its own page (Origin, when
 * sent) and are JSON (a cross-site form cannot send that without CORS, which it never grants).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { serveConsole } from './serve.ts';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

export interface ConsoleServerOptions {
  /** The operator API's base URL, for example `https://abc.execute-api.eu-west-1.amazonaws.com/`. */
  upstreamUrl: string;
  /** The region the API is in (the signature's scope). */
  region: string;
  /** The operator's credentials, asked again for every call (the provider caches and refreshes them). */
  credentials: () => Promise<AwsCredentials>;
  host?: string;
  port?: number;
}

export interface ConsoleServer {
  url: string;
  /** What every call must carry (`Authorization: Bearer <token>`): random, made at the start. */
  token: string;
  /** The page with the token in its fragment (never sent to a server, taken off the address bar). */
  link: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const UPSTREAM_TIMEOUT_MS = 30_000;

function envelope(response: ServerResponse, status: number, type: string, msg: string) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ success: false, status: 'failed', type, msg }));
}

/** The same token, compared in constant time (digests, so the lengths never show). */
function sameToken(sent: string | undefined, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return sent !== undefined && timingSafeEqual(digest(sent), digest(expected));
}

export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  const upstream = new URL(options.upstreamUrl);
  const basePath = upstream.pathname.replace(/\/+$/, '');
  const signer = new SignatureV4({
    service: 'execute-api',
    region: options.region,
    credentials: options.credentials,
    sha256: Sha256,
  });
  const host = options.host ?? '127.0.0.1';
  const token = randomBytes(32).toString('base64url');
  let ownHosts: string[] = [];

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) envelope(response, 502, 'CONSOLE_SERVER_ERROR', String(error));
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const path = new URL(request.url ?? '/', 'http://console').pathname;
    const method = request.method ?? 'GET';
    if (!ownHosts.includes(request.headers.host ?? '')) {
      return envelope(response, 421, 'WRONG_HOST', `Open the console at ${ownHosts[0]}`);
    }
    if (await serveConsole(method, path, response)) return;
    if (!path.startsWith('/v1/ops/'))
      return envelope(response, 404, 'NOT_FOUND', `No ${method} ${path} here`);
    if (method !== 'POST')
      return envelope(response, 405, 'METHOD_NOT_ALLOWED', 'The operator API takes POST');
    const sent = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization?.trim() ?? '')?.[1];
    if (!sameToken(sent, token)) {
      return envelope(
        response,
        401,
        'UNAUTHORIZED',
        'Console token required: open the link npm run console printed (its #token=...)',
      );
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !ownHosts.some((own) => origin === `http://${own}`)) {
      return envelope(response, 403, 'FOREIGN_ORIGIN', `Calls from ${origin} are not signed`);
    }
    if (!String(request.headers['content-type'] ?? '').startsWith('application/json')) {
      return envelope(response, 415, 'UNSUPPORTED_MEDIA_TYPE', 'The operator API takes application/json');
    }
    const body = await readBody(request);
    if (body === undefined) return envelope(response, 413, 'PAYLOAD_TOO_LARGE', 'Request body is too large');

    let signed: Awaited<ReturnType<SignatureV4['sign']>>;
    try {
      // Only what the call is: the browser's own headers (its Authorization above all) stay here.
      signed = await signer.sign({
        method: 'POST',
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        ...(upstream.port ? { port: Number(upstream.port) } : {}),
        path: `${basePath}${path}`,
        query: {},
        headers: { host: upstream.host, 'content-type': 'application/json' },
        body,
      });
    } catch (error) {
      return envelope(
        response,
        401,
        'AWS_CREDENTIALS_UNAVAILABLE',
        `No AWS credentials to sign with (${(error as Error).message}): set AWS_PROFILE, or log in (aws sso login), and restart`,
      );
    }
    const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
    await new Promise<void>((done) => {
      const outgoing = send(
        {
          method: 'POST',
          host: upstream.hostname,
          port: upstream.port || undefined,
          path: `${basePath}${path}`,
          headers: { ...signed.headers, 'content-length': String(Buffer.byteLength(body)) },
          timeout: UPSTREAM_TIMEOUT_MS,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, {
            'content-type': answer.headers['content-type'] ?? 'application/json',
            'cache-control': 'no-store',
          });
          answer.pipe(response);
          answer.on('end', done);
          answer.on('error', () => {
            response.destroy();
            done();
          });
        },
      );
      outgoing.on('timeout', () =>
        outgoing.destroy(new Error(`no answer in ${UPSTREAM_TIMEOUT_MS / 1000} s`)),
      );
      outgoing.on('error', (error) => {
        if (!response.headersSent) {
          envelope(response, 502, 'OPERATOR_API_UNREACHABLE', `${upstream.origin}: ${error.message}`);
        } else response.destroy();
        done();
      });
      outgoing.end(body);
    });
  }

  const port = options.port ?? 3003;
  await new Promise<void>((ready, failed) => {
    server.once('error', failed);
    server.listen(port, host, ready);
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  ownHosts = [`${host}:${actualPort}`, `localhost:${actualPort}`];
  const url = `http://${host}:${actualPort}/`;
  return {
    url,
    token,
    link: `${url}#token=${token}`,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** The request's body as text, or undefined past the limit. */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
