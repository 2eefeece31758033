/**
 * Each local API's contract, served beside it: `GET /openapi.json` (the OpenAPI 3.1 document,
 * generated from the zod schemas the handlers validate with, `shared/contracts/`) and `GET /docs` (a
 * reference page: Swagger UI, served from node_modules, reading that document).
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ApiContract } from '#shared/contracts/openapi';
import { openApiDocument } from '#shared/contracts/openapi';

const swaggerUi = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The renderer's files the page loads, and their types: nothing else of node_modules is served. */
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

function page(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${title}</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });</script>
</body>
</html>
`;
}

/** Each contract's document as served, by the host it names: built once (it takes a while). */
const documents = new WeakMap<ApiContract, Map<string, string>>();

function documentText(contract: ApiContract, host: string | undefined): string {
  let byHost = documents.get(contract);
  if (!byHost) {
    byHost = new Map();
    documents.set(contract, byHost);
  }
  let text = byHost.get(host ?? '');
  if (text === undefined) {
    text = JSON.stringify(openApiDocument(contract, host ? `http://${host}` : undefined));
    byHost.set(host ?? '', text);
  }
  return text;
}

/**
 * Answers `GET /openapi.json`, `/docs` and the page's assets; false for any other request. The
 * document names the server the request reached.
 */
export async function serveContract(
  contract: ApiContract,
  method: string,
  path: string,
  host: string | undefined,
  response: ServerResponse,
): Promise<boolean> {
  if (method !== 'GET') return false;
  if (path === '/openapi.json') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(documentText(contract, host));
    return true;
  }
  if (path === '/docs' || path === '/docs/') {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page(contract.title));
    return true;
  }
  const asset = path.startsWith('/docs/') ? path.slice('/docs/'.length) : undefined;
  const type = asset === undefined ? undefined : assets[asset];
  if (!asset || !type) return false;
  response.writeHead(200, { 'content-type': type, 'cache-control': 'max-age=3600' });
  response.end(await readFile(join(swaggerUi, asset)));
  return true;
}
