/**
 * An API's contract, and its OpenAPI 3.1 document. A contract names each route of a topology API
 * (`shared/topology.ts`) with the zod schemas its handler validates the request with and the schemas
 * of its answers, so the document is generated from the one source of truth. Each API has its own
 * contract module beside this one (`deposits-api.ts`, `sandbox-api.ts`); another API (an operator
 * API) adds its module and its entry in `contracts`, and the local stack serves and the tests check
 * its document like the others'.
 */
import type * as z from 'zod';
import {
  createDocument,
  type ZodOpenApiObject,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
} from 'zod-openapi';
import { FailedEnvelope } from '#shared/provider/interface/responses';
import { failedExamples, responseExamples } from './examples.ts';

export interface RouteContract {
  /** The methods the topology's routes take (`RouteSpec.method` in `shared/topology.ts`). */
  method: 'GET' | 'POST';
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** The JSON body the handler validates, and an example of it that the service accepts. */
  body?: { schema: z.ZodType; example: unknown };
  /** Request headers besides `authorization` (for example `idempotency-key`). */
  headers?: z.ZodObject;
  /** The security schemes the route takes, any one of them (names of `ApiContract.securitySchemes`). */
  security?: string[];
  /** The route also answers without any of them (the deposits API's reads by the backend's own identity). */
  securityOptional?: true;
  /** The answers by HTTP status; every other status is the failed envelope. */
  responses: Record<number, { description: string; schema: z.ZodType }>;
}

export interface ApiContract {
  /** The topology API it describes (`ApiSpec.name` in `shared/topology.ts`; the contract test checks they agree). */
  api: string;
  title: string;
  description: string;
  tags: { name: string; description: string }[];
  securitySchemes: Record<string, SecuritySchemeObject>;
  /** Request headers every route with `security` takes besides its own (the deposits API's X-Provider-Authorization). */
  securedHeaders?: z.ZodObject;
  routes: RouteContract[];
}

type SecuritySchemeObject = NonNullable<
  NonNullable<ZodOpenApiObject['components']>['securitySchemes']
>[string];

/** The user's provider connection as the spec carries it: `Authorization: Bearer <accessToken>`. */
export const connectionBearer: SecuritySchemeObject = {
  type: 'http',
  scheme: 'bearer',
  description: "The user's provider connection: the access token of `/v1/auth/ExchangeToken`.",
};

/** `example` of a media type, when there is one (`examples.ts`). */
const exampled = (example: unknown) => (example === undefined ? {} : { example });

function operation(contract: ApiContract, route: RouteContract): ZodOpenApiOperationObject {
  const examples = responseExamples[contract.api]?.[`${route.method} ${route.path}`] ?? {};
  const secured = route.security ? contract.securedHeaders : undefined;
  const headers = secured && route.headers ? route.headers.extend(secured.shape) : (route.headers ?? secured);
  return {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c = '') => c.toUpperCase())}`,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    ...(route.security
      ? {
          security: [
            ...route.security.map((scheme) => ({ [scheme]: [] })),
            ...(route.securityOptional ? [{}] : []),
          ],
        }
      : {}),
    ...(headers ? { requestParams: { header: headers } } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: route.body.schema, example: route.body.example } },
          },
        }
      : {}),
    responses: {
      ...Object.fromEntries(
        Object.entries(route.responses).map(([status, answer]) => [
          status,
          {
            description: answer.description,
            content: { 'application/json': { schema: answer.schema, ...exampled(examples[Number(status)]) } },
          },
        ]),
      ),
      default: {
        description:
          'A failure: the failed envelope, with the HTTP status of its type (see docs/deposits.md, Errors).',
        content: {
          'application/json': { schema: FailedEnvelope, ...exampled(failedExamples[contract.api]) },
        },
      },
    },
  };
}

/** The contract's OpenAPI 3.1 document; `serverUrl` is where the API answers (the local stack's URL). */
export function openApiDocument(contract: ApiContract, serverUrl?: string) {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of contract.routes) {
    const method = route.method.toLowerCase() as 'get' | 'post';
    paths[route.path] = { ...paths[route.path], [method]: operation(contract, route) };
  }
  return createDocument({
    openapi: '3.1.0',
    info: { title: contract.title, version: '1.0.0', description: contract.description },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    tags: contract.tags,
    paths,
    components: {
      schemas: { FailedEnvelope },
      securitySchemes: contract.securitySchemes,
    },
  });
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
