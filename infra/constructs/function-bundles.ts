/**
 * Every function's bundle, built by one esbuild run over every topology handler (no Docker), once per
 * process: each entry its own bundle, tree-shaken on its own, in a directory of its own
 * (`<name>/index.mjs` and its source map), which the function's asset is. One run parses the
 * modules the handlers share once; a run per function, as `NodejsFunction` bundles (each through
 * `npx`), took a minute for the 52 on two cores, where one run takes seconds.
 *
 * A synthesis that skips bundling (`cdk ls`, `cdk synth --exclusively` of another stack, the tests
 * that assert only on templates: CDK's `aws:cdk:bundling-stacks` context) builds nothing: each
 * function's asset is then a placeholder directory, as CDK's own bundling leaves one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { type BuildOptions, buildSync } from 'esbuild';
import type { FunctionSettings } from '../cdk/settings.ts';
import { functionSettings } from '../cdk/settings.ts';

export const projectRoot = resolve(import.meta.dirname, '../..');

/**
 * What the bundles take instead of a package (esbuild aliases: the tests and the local stack's
 * sources mode run the packages themselves), each for bytes Lambda never runs:
 * - the AWS SDK's default credential chain gives way to the environment's credentials alone
 *   (`lambda-credentials.ts`), all Lambda ever uses: about 120 KiB;
 * - `semver`, which the X-Ray SDK's CommonJS imports for one comparison, gives way to that
 *   comparison (`semver-gte.ts`): 28 KiB;
 * - `@aws-sdk/lib-dynamodb` loses its paginators (`document-client.mjs`), which keep the whole
 *   DynamoDB client in bundles that never call DynamoDB: about 50 KiB of those.
 * `test/infra/bundle-aliases.test.ts` holds each to what it replaces.
 */
export const bundleAliases = {
  '@aws-sdk/credential-provider-node': './infra/constructs/lambda-credentials.ts',
  semver: './infra/constructs/semver-gte.ts',
  '@aws-sdk/lib-dynamodb': './infra/constructs/document-client.mjs',
};

/**
 * How a function is bundled, the one definition: `cdk synth` builds with it, so the local stack's
 * bundles mode (which synthesizes the app, `infra/local/bundles/build.ts`) does too, and the tests'
 * breakdown of each bundle (`test/infra/bundle-breakdown.ts`) reads it. The banner gives bundled
 * CommonJS dependencies the `require` an ES module lacks. ES modules are taken before CommonJS where
 * a package has both (`mainFields`), for tree-shaking. The source map is a file of its own beside
 * the code, without the sources: Lambda reads it only for a stack trace's names
 * (`--enable-source-maps`). The AWS SDK is bundled, tree-shaken and minified, at the version the
 * lock file pins and the tests ran with, rather than taken from the Node 22 runtime: the runtime's
 * SDK is whatever version AWS installs there, changed without a deploy of ours, and it measured two
 * to three times slower to import from its many files (docs/performance.md), for bundles a third the
 * size.
 */
export const bundleOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  mainFields: ['module', 'main'],
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  external: [],
  alias: bundleAliases,
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  logLevel: 'error',
} as const satisfies BuildOptions;

/** Where this process built every function's bundle, once. */
let built: string | undefined;

function buildAll(): string {
  if (built) return built;
  const outdir = mkdtempSync(join(tmpdir(), 'function-bundles-'));
  buildSync({
    ...bundleOptions,
    absWorkingDir: projectRoot,
    entryPoints: Object.fromEntries(
      [...functionSettings.values()].map((settings) => [settings.name, resolve(projectRoot, settings.file)]),
    ),
    outdir,
    entryNames: '[name]/index',
    outExtension: { '.js': '.mjs' },
  });
  // Each function's asset is a copy, staged into the assembly as it is made: this goes with the process.
  process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));
  built = outdir;
  return outdir;
}

/** Where a function's asset comes from when its stack is not bundled: nothing Lambda could run. */
let placeholder: string | undefined;

function placeholderDirectory(): string {
  if (placeholder) return placeholder;
  const directory = mkdtempSync(join(tmpdir(), 'function-placeholder-'));
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
  writeFileSync(join(directory, 'README'), 'Bundling was skipped for this stack: no code.\n');
  placeholder = directory;
  return directory;
}

/** The function's code: its bundle's directory, or the placeholder when its stack is not bundled. */
export function bundledCode(scope: Construct, settings: FunctionSettings): lambda.Code {
  if (!Stack.of(scope).bundlingRequired) return lambda.Code.fromAsset(placeholderDirectory());
  return lambda.Code.fromAsset(join(buildAll(), settings.name));
}
