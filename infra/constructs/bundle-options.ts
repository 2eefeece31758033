/**
 * How the functions are bundled, apart from CDK (`function-bundles.ts` builds with it): what the
 * local stack's step workers' bundle and the tests' bundles read without loading the CDK app.
 */
import { resolve } from 'node:path';
import type { BuildOptions } from 'esbuild';

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

/** What gives an ES module's bundled CommonJS dependencies the `require` it lacks. */
export const requireBanner =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

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
  banner: { js: requireBanner },
  logLevel: 'error',
} as const satisfies BuildOptions;
