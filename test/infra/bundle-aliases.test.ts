/**
 * What the bundles take instead of a package (`bundleAliases`, infra/constructs/bundle-options.ts)
 * does what the package did, for what the bundles use of it: `semver-gte.ts` compares as `semver.gte`
 * does, and `document-client.mjs` has the exports of `@aws-sdk/lib-dynamodb` (but the aggregate no
 * function uses), whose paginators page as the package's own. The credential chain's stand-in is
 * proven by the bundles themselves, which call AWS with it (the `bundles` project).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleAliases, bundleOptions, projectRoot } from '#infra/constructs/bundle-options';
import { gte } from '#infra/constructs/semver-gte';

/** The package itself (CommonJS, without types of its own). */
const semver = createRequire(import.meta.url)('semver') as { gte(a: string, b: string): boolean };

const scratch = mkdtempSync(join(tmpdir(), 'bundle-aliases-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `source` bundled as the functions are, with the aliases or without them: its output's metafile and file. */
async function bundled(name: string, source: string, aliased: boolean) {
  const outfile = join(scratch, `${name}-${aliased ? 'aliased' : 'package'}.mjs`);
  const { metafile } = await build({
    absWorkingDir: projectRoot,
    stdin: { contents: source, resolveDir: projectRoot, sourcefile: `${name}.mjs` },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    mainFields: ['module', 'main'],
    alias: aliased ? bundleAliases : {},
    banner: bundleOptions.banner,
    metafile: true,
    logLevel: 'silent',
  });
  const output = Object.values(metafile?.outputs ?? {})[0];
  return { exports: [...(output?.exports ?? [])].sort(), bytes: output?.bytes ?? 0, file: outfile };
}

describe("semver's stand-in", () => {
  it.each([
    [process.versions.node, '8.0.0'],
    ['8.0.0', '8.0.0'],
    ['7.10.1', '8.0.0'],
    ['v22.11.0', '22.2.0'],
    ['22.2.0', '22.11.0'],
    ['1.0.0-alpha', '1.0.0'],
    ['1.0.0', '1.0.0-rc.1'],
    ['1.0.0-alpha.10', '1.0.0-alpha.9'],
    ['1.0.0-alpha.beta', '1.0.0-alpha.1'],
    ['1.0.0-alpha', '1.0.0-alpha.1'],
    ['2.1175.0', '2.100.0'],
    ['3.1162.0+build.7', '3.1162.0'],
  ])('answers gte(%s, %s) as semver does', (a, b) => {
    expect(gte(a, b)).toBe(semver.gte(a, b));
    expect(gte(b, a)).toBe(semver.gte(b, a));
  });

  it('refuses what is not a version, as semver does', () => {
    expect(() => semver.gte('not a version', '1.0.0')).toThrow(TypeError);
    expect(() => gte('not a version', '1.0.0')).toThrow(TypeError);
  });
});

describe("lib-dynamodb's stand-in", () => {
  const source = [
    "export * from '@aws-sdk/lib-dynamodb';",
    "export { DynamoDBDocumentClient as Client } from '@aws-sdk/lib-dynamodb';",
  ].join('\n');

  it("has the package's exports but the aggregate, and leaves the DynamoDB client out of a bundle that does not use it", async () => {
    const [own, standIn] = await Promise.all([
      bundled('exports', source, false),
      bundled('exports', source, true),
    ]);
    expect(own.exports).toContain('paginateQuery');
    expect(standIn.exports).toEqual(own.exports.filter((name) => name !== 'DynamoDBDocument'));

    const unused = await bundled('unused', "import '@aws-sdk/lib-dynamodb';", true);
    const unusedOwn = await bundled('unused', "import '@aws-sdk/lib-dynamodb';", false);
    expect(unused.bytes).toBeLessThan(unusedOwn.bytes / 4);
  });

  it("pages a query and a scan as the package's paginators do", async () => {
    const [own, standIn] = await Promise.all([
      bundled('pages', source, false),
      bundled('pages', source, true),
    ]);
    const run = async (file: string) => {
      const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      const Client = module.Client as { prototype: object };
      const sent: unknown[] = [];
      // A document client that answers three pages, each naming the key the next one starts at.
      const client = Object.assign(Object.create(Client.prototype), {
        send: async (command: { constructor: unknown; input: Record<string, unknown> }) => {
          const kind = ['QueryCommand', 'ScanCommand'].find((name) => command.constructor === module[name]);
          sent.push([kind, { ...command.input }]);
          const page = sent.length;
          return { Items: [{ page }], ...(page % 3 === 0 ? {} : { LastEvaluatedKey: { pk: `k${page}` } }) };
        },
      });
      type Paginate = (config: object, input: object) => AsyncIterable<{ Items: unknown[] }>;
      const pages: unknown[] = [];
      for (const name of ['paginateQuery', 'paginateScan']) {
        for await (const page of (module[name] as Paginate)({ client, pageSize: 2 }, { TableName: 't' }))
          pages.push(page.Items);
      }
      return { sent, pages };
    };
    const [expected, actual] = [await run(own.file), await run(standIn.file)];
    expect(expected.pages).toHaveLength(6);
    expect(expected.sent[1]).toEqual([
      'QueryCommand',
      { TableName: 't', Limit: 2, ExclusiveStartKey: { pk: 'k1' } },
    ]);
    expect(expected.sent[3]).toEqual(['ScanCommand', { TableName: 't', Limit: 2 }]);
    expect(actual).toEqual(expected);
  });
});
