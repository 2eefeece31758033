/**
 * The deposits API's fuzz over real HTTP: odd and oversized bodies and headers never make any of its
 * routes answer a 5xx or anything but JSON (the sandbox's request validation is unit tests:
 * test/unit/sandbox-validation.test.ts and the files beside it, its fuzz in sandbox-validation-routes.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { depositsApi } from '#shared/topology';
import { depositsUrl } from '../support/deposits.ts';
import { assessReplies, oddBodies, oddHeaders } from '../support/fuzz.ts';
import { appSecret, createUser, type TestUser } from '../support/sandbox.ts';

/** Any method, any body (GET included), any headers; the raw status and text of the answer. */
function raw(
  method: string,
  path: string,
  body: string | undefined,
  headers: Record<string, string> = {},
  baseUrl: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      `${baseUrl}${path}`,
      {
        method,
        headers: {
          'content-type': 'application/json',
          ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
          ...headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const bearer = (user: TestUser) => ({ authorization: `Bearer ${user.accessToken}` });
const secretsOf = (user: TestUser) => ({ appSecret, userSecret: user.userSecret });

describe('fuzz: odd and oversized bodies and headers never make any route of the deposits API answer 5xx or non-JSON', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser('SANDBOX_BENEFICIARY');
  });

  it.each(depositsApi.routes)('deposits: $method $path', async ({ method, path }) => {
    // prepare
    const withKey = (headers: Record<string, string>) => ({ 'idempotency-key': randomUUID(), ...headers });
    const sends = [
      ...oddBodies({}).map((body) => ({ body, headers: withKey({}) })),
      ...oddBodies(secretsOf(user)).map((body) => ({ body, headers: withKey(bearer(user)) })),
      ...oddHeaders(user).map((headers) => ({
        body: JSON.stringify({
          ...secretsOf(user),
          amount: 10,
          senderID: user.accountId,
          operationID: 'dep_x',
        }),
        headers: withKey(headers),
      })),
    ];

    // act
    const replies = await Promise.all(
      sends.map(({ body, headers }) => raw(method, path, body, headers, depositsUrl)),
    );
    const health = await raw('GET', '/health', undefined, {}, depositsUrl);

    // assess
    assessReplies(`${method} ${path}`, sends, replies);
    expect(health.status).toBe(200);
  });
});
