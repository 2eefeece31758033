/**
 * The OpenAPI documents against the running services: each local API serves its document and a
 * reference page; the documents validate as OpenAPI 3.1; they describe every route of the topology
 * and no other; every documented route answers, and every documented request example is accepted
 * (never BAD_REQUEST), its answer matching the documented schema. (Every answer the other e2e tests
 * get through the shared helpers is checked against the documents too: test/support/contract.ts.)
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { validate } from '@readme/openapi-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { contracts } from '#shared/contracts/contracts';
import { depositsApi, operatorApi, sandboxApi } from '#shared/topology';
import { documents, expectDocumented } from '../support/contract.ts';
import { depositsUrl, startDeposit } from '../support/deposits.ts';
import { operatorToken, operatorUrl } from '../support/operator.ts';
import {
  appSecret,
  createUser,
  givenBeneficiary,
  post,
  sandboxUrl,
  type TestUser,
} from '../support/sandbox.ts';

const run = promisify(execFile);
const projectRoot = resolve(import.meta.dirname, '../..');

const apis = [
  { spec: depositsApi, url: depositsUrl },
  { spec: sandboxApi, url: sandboxUrl },
  { spec: operatorApi, url: operatorUrl },
];

describe.each(apis)('the $spec.name API serves its contract', ({ spec, url }) => {
  it('GET /openapi.json: a valid OpenAPI 3.1 document, the one generated from the schemas', async () => {
    // act
    const response = await fetch(`${url}/openapi.json`);
    const served = (await response.json()) as { openapi: string; servers: unknown } & Record<string, unknown>;

    // assess
    expect(response.status).toBe(200);
    expect(served.openapi).toBe('3.1.0');
    expect(served.servers).toEqual([{ url }]);
    const { servers: _servers, ...generated } = served;
    expect(generated).toEqual(JSON.parse(JSON.stringify(documents[spec.name])));
    const result = await validate(structuredClone(served) as Parameters<typeof validate>[0]);
    expect(result).toMatchObject({ valid: true, specification: 'OpenAPI' });
  });

  it('documents every route of the topology, and only those', () => {
    const documented = Object.entries(documents[spec.name]?.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item ?? {}).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(spec.routes.map((route) => `${route.method} ${route.path}`).sort());
  });

  it('npm run openapi prints the same document, with the server it is given', async () => {
    const { stdout } = await run(
      resolve(projectRoot, 'node_modules/.bin/tsx'),
      ['infra/local/openapi.ts', spec.name, url],
      {
        cwd: projectRoot,
      },
    );
    expect(JSON.parse(stdout)).toEqual({
      ...JSON.parse(JSON.stringify(documents[spec.name])),
      servers: [{ url }],
    });
  });

  it('GET /docs: a reference page whose renderer is served from node_modules', async () => {
    // act
    const page = await fetch(`${url}/docs`);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((match) => match[1]);
    const loaded = await Promise.all(assets.map(async (asset) => (await fetch(`${url}${asset}`)).status));

    // assess
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(html).toContain("url: '/openapi.json'");
    expect(assets).toContain('/docs/swagger-ui-bundle.js');
    expect(loaded.every((status) => status === 200)).toBe(true);
  });
});

/** Real values for the fields the examples carry as placeholders: a user of the sandbox and its things. */
interface World {
  user: TestUser;
  /** A second user whose access code is still unused (the token exchange) and whose faults may change. */
  spare: { connectionID: string; accessCode: string };
  beneficiaryId: string;
  jobID: string;
  depositId: string;
}

let world: World;
beforeAll(async () => {
  const user = await createUser('SANDBOX_BENEFICIARY');
  const spare = await post('/sandbox/users', { appSecret, bankId: 'SANDBOX_NO_BENEFICIARY' });
  const metadata = await user.call('/v1/metadata/accounts/get', { sync: true });
  const beneficiaryId = await givenBeneficiary(user);
  const deposit = await startDeposit(user, { amount: 10 });
  world = {
    user,
    spare: spare.body as World['spare'],
    beneficiaryId,
    jobID: metadata.body.jobID,
    depositId: deposit.body.operationID,
  };
});

/** The example with the world's real values in place of its placeholders (only the fields it has). */
function realised(path: string, example: Record<string, unknown>): Record<string, unknown> {
  const spare = path === '/v1/auth/ExchangeToken' || path === '/sandbox/faults';
  const values: Record<string, unknown> = {
    userSecret: world.user.userSecret,
    connectionID: spare ? world.spare.connectionID : world.user.connectionID,
    accessCode: world.spare.accessCode,
    senderID: world.user.accountId,
    cardID: world.user.cardId,
    receiverID: world.beneficiaryId,
    jobID: world.jobID,
    operationID: world.depositId,
  };
  return Object.fromEntries(
    Object.entries(example).map(([field, value]) => [field, field in values ? values[field] : value]),
  );
}

describe.each(apis)('every documented route of the $spec.name API answers', ({ spec, url }) => {
  const contract = contracts[spec.name];
  if (!contract) throw new Error(`no contract for ${spec.name}`);

  it.each(contract.routes)('$method $path: its example is accepted', async (route) => {
    // prepare
    const body = route.body ? realised(route.path, route.body.example as Record<string, unknown>) : undefined;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    // The operator API takes the operator's token; the others the user's connection.
    const bearer = spec === operatorApi ? operatorToken : world.user.accessToken;
    if (route.security) headers.authorization = `Bearer ${bearer}`;
    if (route.headers) headers['idempotency-key'] = crypto.randomUUID();

    // act
    const response = await fetch(`${url}${route.path}`, {
      method: route.method,
      headers,
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const answer = (await response.json()) as { type?: string };

    // assess: a documented answer, never the unknown route's, never a refusal of the request's shape
    expectDocumented(spec.name, route.method, route.path, response.status, answer);
    expect(answer.type).not.toBe('NOT_FOUND');
    expect(answer.type).not.toBe('BAD_REQUEST');
    if (spec === operatorApi) expect(answer.type).not.toBe('UNAUTHORIZED');
    expect(response.status).toBeLessThan(500);
  });
});
