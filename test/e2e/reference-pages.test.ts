/**
 * The reference pages (`/docs`, Swagger UI over each served `/openapi.json`) as a newcomer uses them:
 * Authorize offers one scheme per route, and filled with the credential as it was handed out (the
 * access token of ExchangeToken, the operator token `npm start` printed), the request Swagger UI then
 * sends is accepted. Swagger UI sends every scheme that was filled, so two schemes for one route,
 * both filled, would send both.
 */
import { describe, expect, it } from 'vitest';
import { depositsUrl } from '../support/deposits.ts';
import { operatorToken, operatorUrl } from '../support/operator.ts';
import { appSecret, createUser, sandboxUrl } from '../support/sandbox.ts';

interface Scheme {
  type: string;
  scheme?: string;
  in?: string;
  name?: string;
}

interface Served {
  components?: { securitySchemes?: Record<string, Scheme> };
  paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
}

/** The headers Swagger UI sends for a scheme filled with `value` (its http bearer and apiKey kinds). */
function filled(scheme: Scheme, value: string): Record<string, string> {
  if (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer')
    return { authorization: `Bearer ${value}` };
  if (scheme.type === 'apiKey' && scheme.in === 'header' && scheme.name)
    return { [scheme.name.toLowerCase()]: value };
  throw new Error(`a scheme the test does not fill: ${JSON.stringify(scheme)}`);
}

/** A route's request as Swagger UI sends it once Authorize was filled with `value` for every scheme. */
async function authorized(url: string, path: string, value: string, body: unknown) {
  const document = (await (await fetch(`${url}/openapi.json`)).json()) as Served;
  const offered = (document.paths[path]?.post?.security ?? []).flatMap((requirement) =>
    Object.keys(requirement),
  );
  const schemes = document.components?.securitySchemes ?? {};
  const headers = Object.assign({}, ...offered.map((name) => filled(schemes[name] ?? { type: '?' }, value)));
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { offered, status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('Authorize on the reference pages, filled as a newcomer does', () => {
  it('the deposits API: one scheme, the access token as ExchangeToken gave it, accepted', async () => {
    // prepare
    const user = await createUser('SANDBOX_BENEFICIARY');

    // act
    const listed = await authorized(depositsUrl, '/v1/deposits/list', user.accessToken, {
      appSecret,
      userSecret: user.userSecret,
    });

    // assess
    expect(listed.offered).toHaveLength(1);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ deposits: [] });
  });

  it('the sandbox: one scheme, the access token, accepted', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');

    const read = await authorized(sandboxUrl, '/v1/metadata/accounts/get', user.accessToken, {
      appSecret,
      userSecret: user.userSecret,
      sync: true,
    });

    expect(read.offered).toHaveLength(1);
    expect(read.status).toBeLessThan(300);
    expect(read.body.success).toBe(true);
  });

  it('the operator API: one scheme, the operator token npm start printed, accepted', async () => {
    const queues = await authorized(operatorUrl, '/v1/ops/queues', operatorToken, {});

    expect(queues.offered).toHaveLength(1);
    expect(queues.status).toBe(200);
  });
});
