/**
 * A stand-in for API Gateway's IAM authorizer in front of the operator API, for the test of
 * `npm run console`: there is no local stand-in for it (the local stack's operator gateway takes a
 * bearer token instead). It verifies each request's SigV4 signature (service `execute-api`) against
 * known static credentials, written here from the AWS specification rather than with the signer the
 * console uses, refuses what does not verify with 403 as API Gateway would, and hands what does to
 * `backend`. It records every request it sees, so a test can tell what reached it.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  verified: boolean;
  /** Why the signature did not verify. */
  refusal?: string;
}

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
/** RFC 3986 escaping, as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
const uriEscape = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

/** Why `request` is not signed by `credentials` for `region` and `execute-api`, or undefined when it is. */
export function refusalOf(
  request: Pick<SeenRequest, 'method' | 'path' | 'headers' | 'body'>,
  credentials: Credentials,
  region: string,
  now = Date.now(),
): string | undefined {
  const authorization = String(request.headers.authorization ?? '');
  const parts =
    /^AWS4-HMAC-SHA256 Credential=([^,]+), ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (!parts) return 'no SigV4 Authorization header';
  const [, credential = '', signedHeaderList = '', signature = ''] = parts;
  const [accessKeyId, day, scopeRegion, service, terminator] = credential.split('/');
  if (accessKeyId !== credentials.accessKeyId) return `unknown access key ${accessKeyId}`;
  if (scopeRegion !== region || service !== 'execute-api' || terminator !== 'aws4_request') {
    return `wrong scope ${credential}`;
  }
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const stamp = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!stamp || amzDate.slice(0, 8) !== day) return 'no x-amz-date of the scope day';
  const [, y, mo, d, h, mi, s] = stamp.map(Number);
  const signedAt = Date.UTC(y ?? 0, (mo ?? 1) - 1, d, h, mi, s);
  if (Math.abs(now - signedAt) > 5 * 60_000) return 'signed more than 5 minutes away from now';
  const signedHeaders = signedHeaderList.split(';');
  if (!signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date'))
    return 'host or date not signed';
  const payloadHash = sha256(request.body);
  const declared = request.headers['x-amz-content-sha256'];
  if (declared !== undefined && declared !== payloadHash) return 'the body is not the one signed';
  const [rawPath = '/', rawQuery = ''] = request.path.split('?');
  const canonicalUri = rawPath
    .split('/')
    .map((segment) => uriEscape(segment))
    .join('/');
  const canonicalQuery = rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => pair.split('=').map((part) => uriEscape(decodeURIComponent(part ?? ''))))
    .sort(([a = ''], [b = '']) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value = '']) => `${key}=${value}`)
    .join('&');
  const canonicalHeaders = signedHeaders
    .map(
      (name) =>
        `${name}:${String(request.headers[name] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const canonicalRequest = [
    request.method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders,
    signedHeaderList,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${region}/execute-api/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  let key = hmac(`AWS4${credentials.secretAccessKey}`, day ?? '');
  for (const part of [region, 'execute-api', 'aws4_request']) key = hmac(key, part);
  const expected = Buffer.from(createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex'));
  if (!timingSafeEqual(expected, Buffer.from(signature))) return 'signature does not match';
  return undefined;
}

export async function startSigV4Upstream(options: {
  credentials: Credentials;
  region: string;
  backend: (path: string, body: string) => Promise<{ status: number; body: string }>;
}) {
  const seen: SeenRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request = {
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const refusal = refusalOf(request, options.credentials, options.region);
      seen.push({ ...request, verified: refusal === undefined, ...(refusal ? { refusal } : {}) });
      const answer = refusal
        ? Promise.resolve({ status: 403, body: JSON.stringify({ message: `Forbidden: ${refusal}` }) })
        : options.backend(request.path, request.body);
      void answer.then(
        ({ status, body }) => {
          outgoing.writeHead(status, { 'content-type': 'application/json' });
          outgoing.end(body);
        },
        (error: unknown) => {
          outgoing.writeHead(502, { 'content-type': 'application/json' });
          outgoing.end(JSON.stringify({ message: String(error) }));
        },
      );
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
