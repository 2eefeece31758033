/**
 * The docs' tables that the code defines say what the code says: each generated block of a page in
 * `docs/` is what `npm run docs:tables` writes from the code today (entities and keys, routes, what
 * each function may touch, error and failure types, configuration variables).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { variableRows } from '#infra/docs/config-variables';
import { blocksOf, rewrite } from '#infra/docs/markdown';
import { docTables, outsideSchemas } from '#infra/docs/tables';

const root = join(import.meta.dirname, '../..');
const pages = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => ({ name, text: readFileSync(join(root, 'docs', name), 'utf8') }));
const tables = docTables();

describe('the generated tables of the docs', () => {
  it.for(Object.keys(tables))('%s stands in exactly one page, as the code writes it', (name) => {
    const holding = pages.filter((page) => blocksOf(page.text).has(name));
    expect(holding.map((page) => page.name)).toHaveLength(1);
    const [page] = holding;
    expect(blocksOf(page?.text ?? '').get(name), `run npm run docs:tables (${page?.name})`).toBe(
      tables[name],
    );
  });

  it('every generated block of a page names a table the code writes', () => {
    const named = pages.flatMap((page) => [...blocksOf(page.text).keys()]);
    expect(named.filter((name) => !(name in tables))).toEqual([]);
  });

  it('writing the tables again changes nothing', () => {
    for (const page of pages) expect(rewrite(page.text, tables), page.name).toBe(page.text);
  });

  it('notices a page that drifted: a row changed by hand is not what the code writes', () => {
    const page = pages.find((candidate) => blocksOf(candidate.text).has('deposits-entities'));
    const drifted = (page?.text ?? '').replace('`WAKE#<owner>#<wallet account>`', '`WAKEUP#<owner>`');
    expect(blocksOf(drifted).get('deposits-entities')).not.toBe(tables['deposits-entities']);
  });

  it('the configuration table covers every variable the local stack reads besides the handlers', () => {
    // Read by the local stack's own processes, not by a deployment: the demo's targets and the step
    // workers' files between their parent and their children.
    const internal = ['DEPOSITS_URL', 'SANDBOX_URL', 'STEP_WORKERS_JOURNAL', 'STEP_WORKERS_FIRINGS'];
    const local = readdirSync(join(root, 'infra/local'))
      .filter((name) => name.endsWith('.ts'))
      .flatMap((name) => [
        ...readFileSync(join(root, 'infra/local', name), 'utf8').matchAll(/process\.env\.([A-Z][A-Z0-9_]+)/g),
      ])
      .map((match) => match[1] ?? '')
      .filter((name) => !internal.includes(name) && !name.startsWith('AWS_'));
    const documented = variableRows.flatMap((row) => row.variables);
    expect([...new Set(local)].filter((name) => !documented.includes(name))).toEqual([]);
    expect(outsideSchemas.filter((name) => !documented.includes(name))).toEqual([]);
  });
});
