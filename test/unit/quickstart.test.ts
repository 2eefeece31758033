/**
 * docs/quickstart.md, the five minutes a newcomer starts with, stays true: the README leads to it,
 * every `npm run` it names is a script, every bank it names is one of the sandbox's, and every link
 * it gives reaches a page and a heading there (GitHub's anchors). What its commands print is held by
 * the tests that run them (npm-start, demo, npm-start-activity).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxBanks } from '#shared/sandbox/catalog';

const root = join(import.meta.dirname, '..', '..');
const quickstart = readFileSync(join(root, 'docs', 'quickstart.md'), 'utf8');
const scripts = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchors(page: string): Set<string> {
  return new Set([...page.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1] ?? '')));
}

describe('the quickstart', () => {
  it('is linked from the README', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');

    expect(readme).toMatch(/\]\(docs\/quickstart\.md\)/);
  });

  it('names only scripts that exist and banks the sandbox has', () => {
    const named = [...quickstart.matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1] ?? '');
    const banks = [
      ...[...quickstart.matchAll(/npm run demo -- ([A-Z_]+)/g)].map((match) => match[1] ?? ''),
      ...[...quickstart.matchAll(/"bankId":"([A-Z_]+)"/g)].map((match) => match[1] ?? ''),
    ];

    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((name) => !(name in scripts))).toEqual([]);
    expect(banks.length).toBeGreaterThan(1);
    expect(banks.filter((bank) => !sandboxBanks.some((known) => known.bankId === bank))).toEqual([]);
  });

  it('links to pages and headings that exist', () => {
    const links = [...quickstart.matchAll(/\]\(([\w.-]+\.md)(?:#([\w-]+))?\)/g)].map(
      ([, file = '', anchor]) => ({
        file,
        anchor,
      }),
    );

    const broken = links.filter(({ file, anchor }) => {
      const path = join(root, 'docs', file);
      return !existsSync(path) || (anchor !== undefined && !anchors(readFileSync(path, 'utf8')).has(anchor));
    });

    expect(links.length).toBeGreaterThan(4);
    expect(broken).toEqual([]);
  });
});
