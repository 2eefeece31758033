/**
 * The documented answers: each API's OpenAPI document (as the local stack serves it), its response
 * schemas compiled with Ajv (JSON Schema 2020-12, what OpenAPI 3.1 speaks). The e2e helpers check
 * every answer they get from a documented route against the schema of its status (or `default`).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { contracts } from '#shared/contracts/contracts';
import { openApiDocument } from '#shared/contracts/openapi';

type Document = ReturnType<typeof openApiDocument>;
type Responses = Record<string, { content?: Record<string, { schema?: object }> }>;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
// zod writes `startsWith` as a pattern and this format name besides; the pattern is what checks it.
ajv.addFormat('starts_with', true);

export const documents: Record<string, Document> = Object.fromEntries(
  Object.entries(contracts).map(([name, contract]) => {
    const document = openApiDocument(contract);
    ajv.addSchema(document as object, `${name}.json`);
    return [name, document];
  }),
);

const pointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
const compiled = new Map<string, ValidateFunction>();

/** The documented schema of this answer: its status's, else `default`; undefined for an undocumented route. */
function schemaOf(api: string, method: string, path: string, status: number): ValidateFunction | undefined {
  const operation = documents[api]?.paths?.[path]?.[method.toLowerCase() as 'get' | 'post'];
  if (!operation) return undefined;
  const responses = operation.responses as Responses;
  const code = responses[String(status)] ? String(status) : 'default';
  const ref = `${api}.json#/paths/${pointer(path)}/${method.toLowerCase()}/responses/${code}/content/application~1json/schema`;
  let validate = compiled.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    compiled.set(ref, validate);
  }
  return validate;
}

/** Throws when an answer of a documented route does not match its documented schema. */
export function expectDocumented(api: string, method: string, path: string, status: number, body: unknown) {
  const validate = schemaOf(api, method, path.split('?')[0] ?? path, status);
  if (!validate || validate(body)) return;
  throw new Error(
    `${method} ${path} answered ${status} off its documented schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 2000)}`,
  );
}
