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
import { buildSync, type Metafile } from 'esbuild';
import { type FunctionSettings, functionSettings } from '../cdk/settings.ts';
import { bundleOptions, projectRoot } from './bundle-options.ts';

/** Where this process built every function's bundle, once, and esbuild's account of it. */
let built: { directory: string; metafile: Metafile } | undefined;

/**
 * esbuild's metafile of this process's build, once it has built (what each bundle holds, input by
 * input: the bundle-budget test's breakdown reads it rather than bundling again).
 */
export function builtMetafile(): Metafile | undefined {
  return built?.metafile;
}

function buildAll(): string {
  if (built) return built.directory;
  const outdir = mkdtempSync(join(tmpdir(), 'function-bundles-'));
  const { metafile } = buildSync({
    ...bundleOptions,
    absWorkingDir: projectRoot,
    entryPoints: Object.fromEntries(
      [...functionSettings.values()].map((settings) => [settings.name, resolve(projectRoot, settings.file)]),
    ),
    outdir,
    entryNames: '[name]/index',
    outExtension: { '.js': '.mjs' },
    metafile: true,
  });
  // Each function's asset is a copy, staged into the assembly as it is made: this goes with the process.
  process.once('exit', removeBuiltBundles);
  built = { directory: outdir, metafile };
  return outdir;
}

/**
 * Removes this process's build, if any (the next bundled synthesis builds again): for a process
 * that ends without its `exit` event, as a test runner's worker is stopped.
 */
export function removeBuiltBundles(): void {
  if (built) rmSync(built.directory, { recursive: true, force: true });
  built = undefined;
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
