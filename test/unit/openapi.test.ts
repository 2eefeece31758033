/**
 * The OpenAPI generator (shared/contracts/openapi.ts) on its own: any contract becomes a valid
 * OpenAPI 3.1 document, so a new API (an operator API) needs only its contract module.
 */
import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { contracts } from '#shared/contracts/contracts';
import { type ApiContract, openApiDocument } from '#shared/contracts/openapi';

/** What an operator API's contract could look like: its own routes, schemas and security. */
const operatorContract: ApiContract = {
  api: 'operator',
  title: 'Operator API',
  description: 'For the people who run the service.',
  tags: [{ name: 'operator', description: 'Operations' }],
  securitySchemes: { iam: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'SigV4' } },
  routes: [
    {
      method: 'POST',
      path: '/v1/operator/deposits/redrive',
      tag: 'operator',
      summary: 'Re-drive a stuck deposit',
      security: ['iam'],
      headers: z.object({ 'x-operator': z.string().min(1) }),
      body: { schema: z.object({ depositId: z.string().min(1) }), example: { depositId: 'dep_1' } },
      responses: { 202: { description: 'Re-driven', schema: z.object({ depositId: z.string() }) } },
    },
  ],
};

describe('the OpenAPI generator', () => {
  it('turns any contract into a valid OpenAPI 3.1 document', async () => {
    // act
    const document = openApiDocument(operatorContract, 'http://127.0.0.1:3002');
    const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);

    // assess
    expect(result).toMatchObject({ valid: true });
    const operation = document.paths?.['/v1/operator/deposits/redrive']?.post;
    expect(document.servers).toEqual([{ url: 'http://127.0.0.1:3002' }]);
    expect(operation).toMatchObject({
      operationId: 'postV1OperatorDepositsRedrive',
      security: [{ iam: [] }],
      parameters: [{ in: 'header', name: 'x-operator', required: true }],
      requestBody: { required: true, content: { 'application/json': { example: { depositId: 'dep_1' } } } },
      responses: {
        202: { description: 'Re-driven' },
        default: {
          content: { 'application/json': { schema: { $ref: '#/components/schemas/FailedEnvelope' } } },
        },
      },
    });
  });

  it('documents each request example as its own schema accepts it', () => {
    for (const contract of [...Object.values(contracts), operatorContract]) {
      for (const route of contract.routes) {
        if (!route.body) continue;
        const parsed = route.body.schema.safeParse(route.body.example);
        expect({
          route: `${contract.api} ${route.method} ${route.path}`,
          issues: parsed.error?.issues ?? [],
        }).toEqual({
          route: `${contract.api} ${route.method} ${route.path}`,
          issues: [],
        });
      }
    }
  });
});
