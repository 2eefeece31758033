/**
 * `npm ci` on the oldest Node the project says it runs on, without warnings: every package the
 * lockfile installs admits that Node (else npm warns `EBADENGINE`), every package with an install
 * script is named in `allowScripts` (else npm warns that it is not covered), and the README's
 * prerequisite names the same Node as `engines`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
/** npm's own range logic (a devDependency), so that the check reads a range as npm does. */
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};

interface LockedPackage {
  version?: string;
  engines?: { node?: string } | string[];
  hasInstallScript?: boolean;
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockedPackage>;
};
const oldestNode = semver.minVersion(manifest.engines.node)?.version ?? '';

/** A lockfile path's package name: the part after its last `node_modules/`. */
const nameOf = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

describe('npm ci on the Node the project names', () => {
  it('installs only packages that admit the oldest Node of `engines` (no EBADENGINE)', () => {
    // prepare
    const locked = Object.entries(lock.packages).filter(([path]) => path !== '');

    // act
    const refusing = locked
      .map(([path, entry]) => ({ path, version: entry.version, node: nodeRange(entry) }))
      .filter((entry) => entry.node !== undefined && !semver.satisfies(oldestNode, entry.node));

    // assess
    expect(oldestNode).toMatch(/^\d+\.\d+\.\d+$/);
    expect(refusing).toEqual([]);
  });

  it('names every package with an install script in allowScripts (no "not yet covered" warning)', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path]) => nameOf(path));

    const uncovered = withScripts.filter((name) => !(name in (manifest.allowScripts ?? {})));

    expect(uncovered).toEqual([]);
  });

  it("the README's prerequisite is the Node of `engines`", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');

    const named = /^- Node\.js (\S+) or newer/m.exec(readme)?.[1];

    expect(named && semver.minVersion(`>=${named}`)?.version).toBe(oldestNode);
  });
});

function nodeRange(entry: LockedPackage): string | undefined {
  return Array.isArray(entry.engines) ? undefined : entry.engines?.node;
}
