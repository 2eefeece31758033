/**
 * The test projects (vitest.config.ts):
 *   - their groups: vitest runs a group's projects in one pool, of one size, and refuses a run whose
 *     projects of one group ask different sizes ("different 'maxWorkers' but same
 *     'sequence.groupOrder'"): `npx vitest run` of every project would end there, before any test.
 *     `npm test` runs a phase's projects together (`test/run.ts`), which each group must allow.
 *   - the unit files that change what the process shares: the `unit` project's files share a module
 *     graph per worker, so a file there that replaced a class's method, or set the environment, would
 *     change the files after it in its worker, depending on the order the runner gives them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.ts';

interface Project {
  test: { name: string; include?: string[]; maxWorkers?: number; sequence?: { groupOrder?: number } };
}

/**
 * What changes the process for every file after it: a class's method replaced, the crash points'
 * wrappers installed (they replace the provider client's and the deposit table's methods), the
 * environment set, a module mocked or a global stubbed.
 */
const sharedChanges = [
  /\.prototype\.\w+\s*=[^=]/,
  /installCrashPoints\(/,
  /vi\.(stubEnv|stubGlobal|mock)\(/,
  /process\.env(\.\w+|\[[^\]]+\])\s*=[^=]/,
  /Object\.assign\(process\.env/,
  /delete process\.env/,
];

const projects = (config.test?.projects ?? []) as Project[];

describe('the test projects', () => {
  it('share their pool size with every project of their group', () => {
    const sizes = new Map<number, Set<number | undefined>>();
    for (const { test } of projects) {
      const group = test.sequence?.groupOrder ?? 0;
      sizes.set(group, (sizes.get(group) ?? new Set()).add(test.maxWorkers));
    }

    expect(projects.length).toBeGreaterThan(5);
    expect([...sizes].filter(([, size]) => size.size > 1)).toEqual([]);
  });

  it('run each unit file that changes what the process shares in a module graph of its own', () => {
    const unitDir = resolve(import.meta.dirname);
    const changing = readdirSync(unitDir)
      .filter((name) => name.endsWith('.test.ts'))
      .filter((name) =>
        sharedChanges.some((change) => change.test(readFileSync(join(unitDir, name), 'utf8'))),
      )
      .map((name) => `test/unit/${name}`);
    const isolated = projects.find(({ test }) => test.name === 'unit-isolated')?.test.include ?? [];

    expect(changing).toContain('test/unit/config-owner-key.test.ts');
    expect(changing.filter((file) => !isolated.includes(file))).toEqual([]);
  });
});
