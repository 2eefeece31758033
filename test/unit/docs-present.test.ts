/**
 * The pages state the present: no page of the README or `docs/` names an issue, a machine a run was
 * made on, or a file, heading or document the repository does not hold. A run's log lives in
 * `docs/runs/`, one file a run, each listed in its index.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, findings, type Repository } from '#infra/docs/present';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

// The files the repository holds: tracked, or new and not ignored (a page added with its test).
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((path) => path !== '' && existsSync(join(root, path)));
const pages = files.filter((path) => path === 'README.md' || /^docs\/.+\.md$/.test(path));

const repository: Repository = {
  exists: (path) => existsSync(join(root, path)),
  documents: new Set(files.filter((path) => path.endsWith('.md')).map((path) => basename(path))),
  anchors: (path) => anchorsOf(read(path)),
};

/** A repository of a few files, for the checker's own tests. */
const sample: Repository = {
  exists: (path) => ['docs', 'docs/design.md', 'shared', 'shared/money.ts', 'shared/provider'].includes(path),
  documents: new Set(['design.md', 'README.md']),
  anchors: (path) => (path === 'docs/design.md' ? new Set(['layout']) : new Set()),
};

describe('the pages', () => {
  it('are the README and every page of docs/, the runs included', () => {
    expect(pages).toContain('README.md');
    expect(pages).toContain('docs/provider-interface.md');
    expect(pages.some((page) => page.startsWith('docs/runs/'))).toBe(true);
  });

  it.for(pages)('%s names no issue, machine, or file the repository lacks', (page) => {
    expect(findings(page, read(page), repository)).toEqual([]);
  });

  it('list every run in the runs index, and the index names no run that is not there', () => {
    const index = read('docs/runs/README.md');
    const runs = readdirSync(join(root, 'docs/runs')).filter((name) => name !== 'README.md');
    const linked = [...index.matchAll(/\]\(([\w.-]+\.md)[)#]/g)].map((match) => match[1]);
    expect(runs.filter((name) => !linked.includes(name))).toEqual([]);
  });
});

describe('the checker', () => {
  // prepare: a page as it must not be
  const page = [
    'Fixed in issue 22, as #31 asked (see PR 7).',
    'The bench ran on this machine; on my laptop it was slower.',
    'Read [the design](design.md#layout), [the missing page](gone.md) and [a heading](design.md#nowhere).',
    'The code: `shared/money.ts`, `shared/nothing.ts`, infra/missing/file.ts and `shared/provider/*.ts`.',
    'As the DESIGN document and `STYLE.md` say.',
  ].join('\n');

  it('names each mention that does not state the present, with its line', () => {
    // act
    const found = findings('docs/page.md', page, sample);

    // assess
    expect(found.map(({ kind, line, text }) => `${line} ${kind}: ${text}`)).toEqual([
      '1 issue: issue 22',
      '1 issue: PR 7',
      '1 issue: #31',
      '2 machine: this machine',
      '2 machine: my laptop',
      '3 missing path: gone.md',
      '3 missing path: design.md#nowhere',
      '4 missing path: shared/nothing.ts',
      '4 missing path: infra/missing/file.ts',
      '5 missing document: STYLE.md',
      '5 missing document: DESIGN document',
    ]);
  });

  it('passes what only looks like an issue, a path or a machine', () => {
    // prepare
    const fine = [
      'A shard such as `done#7`, a colour `#0a0b0c`, an anchor [§1](design.md#layout), a deposit 111.',
      'Node 20 or newer on your machine; the local host; two cores.',
      'Placeholders: `shared/<domain>/model.ts`, `shared/provider/{a,b}.ts`; a URL https://x.test/docs/a.md.',
      'A run is `npm run chaos`; the file `package.json`.',
    ].join('\n');

    // act, assess
    expect(findings('docs/page.md', fine, sample)).toEqual([]);
  });
});
