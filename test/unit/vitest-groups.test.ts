/**
 * The test projects' groups (vitest.config.ts): vitest runs a group's projects in one pool, of one
 * size, and refuses a run whose projects of one group ask different sizes ("different 'maxWorkers'
 * but same 'sequence.groupOrder'"): `npx vitest run` of every project would end there, before any
 * test. `npm test` runs a phase's projects together (`test/run.ts`), which each group must allow.
 */
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.ts';

interface Project {
  test: { name: string; maxWorkers?: number; sequence?: { groupOrder?: number } };
}

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
});
