/**
 * The operator console's page: static files from `infra/console/page/`, served as they are (no build
 * step), by the local stack's operator gateway and by `npm run console` against a deployed stage.
 * Only the files of that folder, by exact name, with their types; anything else is not ours.
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';

const pageFolder = join(import.meta.dirname, 'page');

/** The page's files by the path they are served at, and their types. */
const files: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/console/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/console/api.js': { file: 'api.js', type: 'text/javascript; charset=utf-8' },
  '/console/dom.js': { file: 'dom.js', type: 'text/javascript; charset=utf-8' },
  '/console/timeline.js': { file: 'timeline.js', type: 'text/javascript; charset=utf-8' },
  '/console/actions.js': { file: 'actions.js', type: 'text/javascript; charset=utf-8' },
  '/console/clock.js': { file: 'clock.js', type: 'text/javascript; charset=utf-8' },
  '/console/list.js': { file: 'list.js', type: 'text/javascript; charset=utf-8' },
  '/console/plots.js': { file: 'plots.js', type: 'text/javascript; charset=utf-8' },
  '/console/deliveries.js': { file: 'deliveries.js', type: 'text/javascript; charset=utf-8' },
  '/console/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};

/**
 * What the page may do, and who may frame it: its own scripts, styles and calls only (the operator
 * API it talks to is served from the same origin), and no page of any origin may frame it
 * (`frame-ancestors 'none'`: a framing page could trick an operator into clicking an action).
 */
export const consoleHeaders = {
  'content-security-policy': [
    "default-src 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** Answers `GET` of one of the page's files; false for any other request. */
export async function serveConsole(method: string, path: string, response: ServerResponse): Promise<boolean> {
  const served = method === 'GET' ? files[path] : undefined;
  if (!served) return false;
  response.writeHead(200, { 'content-type': served.type, 'cache-control': 'no-cache', ...consoleHeaders });
  response.end(await readFile(join(pageFolder, served.file)));
  return true;
}
