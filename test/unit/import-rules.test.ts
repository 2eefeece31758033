/**
 * The import rules (`.dependency-cruiser.cjs`): the tree keeps them (no cycles, nothing imports
 * upward, the domains free of transport), a planted breach of each is named, and no domain module
 * calls `fetch` (a global, which no import shows).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it, onTestFinished } from 'vitest';

const require = createRequire(import.meta.url);
const root = join(import.meta.dirname, '..', '..');
const config = require(join(root, '.dependency-cruiser.cjs'));

async function violations(paths: string[], baseDir: string, options: Record<string, unknown> = {}) {
  const result = await cruise(paths, {
    ...options,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    baseDir,
  });
  const output = result.output as ICruiseResult;
  const named = output.summary.violations.map(
    (violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`,
  );
  return { named, modules: output.modules.length };
}

describe('import rules', () => {
  it('the sources keep them', async () => {
    // act
    const found = await violations(['shared', 'functions', 'infra'], root, config.options);

    // assess: the whole tree was read, and nothing breaks a rule
    expect(found.modules).toBeGreaterThan(200);
    expect(found.named).toEqual([]);
  }, 60_000);

  it('name a planted breach of each: a cycle, transport in a domain, an upward import, a role of the deposit domain reaching up or aside', async () => {
    // prepare: a tree of its own, each file breaking one rule
    const tree = mkdtempSync(join(tmpdir(), 'import-rules-'));
    onTestFinished(() => rmSync(tree, { recursive: true, force: true }));
    const files: Record<string, string> = {
      'shared/deposits/uses-middy.ts': "import middy from '@middy/core';\nexport const a = middy;\n",
      'shared/deposits/uses-adapter.ts': "import { b } from '../adapters/table.ts';\nexport const a = b;\n",
      'shared/adapters/table.ts': "import { c } from '../wiring/steps.ts';\nexport const b = c;\n",
      'shared/wiring/steps.ts': 'export const c = 1;\n',
      'shared/provider/interface/one.ts': "import { e } from './two.ts';\nexport const d = e;\n",
      'shared/provider/interface/two.ts': "import { d } from './one.ts';\nexport const e = d;\n",
      'shared/deposits/model/uses-journey.ts':
        "import { f } from '../journey/moves.ts';\nexport const g = f;\n",
      'shared/deposits/journey/moves.ts': 'export const f = 1;\n',
      'shared/deposits/steps/uses-request.ts':
        "import { h } from '../requests/start.ts';\nimport { i } from './same.ts';\nexport const j = h + i;\n",
      'shared/deposits/steps/same.ts': 'export const i = 1;\n',
      'shared/deposits/requests/start.ts': 'export const h = 1;\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(tree, path)), { recursive: true });
      writeFileSync(join(tree, path), text);
    }

    // act
    const { named } = await violations(['shared'], tree);

    // assess
    expect(named.sort()).toEqual(
      [
        'adapters-below-wiring: shared/adapters/table.ts -> shared/wiring/steps.ts',
        'domain-without-transport: shared/deposits/uses-adapter.ts -> shared/adapters/table.ts',
        'domain-without-transport: shared/deposits/uses-middy.ts -> @middy/core',
        'no-cycles: shared/provider/interface/one.ts -> shared/provider/interface/two.ts',
        'deposits-model-at-the-bottom: shared/deposits/model/uses-journey.ts -> shared/deposits/journey/moves.ts',
        'deposits-steps-requests-background-apart: shared/deposits/steps/uses-request.ts -> shared/deposits/requests/start.ts',
      ].sort(),
    );
  });

  it('no folder among the sources is named spec (read as tests by people and tools)', () => {
    // act
    const folders = ['shared', 'functions', 'infra', 'test'].flatMap((top) =>
      readdirSync(join(root, top), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => join(entry.parentPath, entry.name)),
    );

    // assess
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((folder) => /^specs?$/.test(folder.split('/').at(-1) ?? ''))).toEqual([]);
  });

  it('no domain module calls fetch', () => {
    // prepare
    const sources = ['deposits', 'operator', 'sandbox'].flatMap((domain) =>
      readdirSync(join(root, 'shared', domain), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => join('shared', domain, file)),
    );

    // act
    const calling = sources.filter((file) => /\bfetch\s*\(/.test(readFileSync(join(root, file), 'utf8')));

    // assess
    expect(sources.length).toBeGreaterThan(20);
    expect(calling).toEqual([]);
  });
});
