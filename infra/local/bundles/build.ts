/**
 * The bundles `cdk synth` builds, for the local stack's bundle mode: the CDK app synthesized in this
 * process with cdk.json's context (as `cdk synth` does, esbuild bundling every function) and the
 * stack's own settings as context (`bundleContext`), so that each function's template names the
 * variables its stack gives it in AWS, with the stack's tuning as their values. Per function: its
 * bundle (`index.mjs`), its environment as the template writes it (references to the stacks'
 * resources included, which `environment.ts` turns into the local stack's values), its timeout and
 * its memory.
 *
 * Built once per content: the bundles and their list go to a directory named by a digest of the
 * context and of everything bundled (functions/, shared/, infra/ but infra/local/, the lock file,
 * cdk.json), under node_modules/.cache/local-bundles/; a later start with the same digest reuses it.
 * The code of the bundles depends on what is bundled alone (every function has the same bundling
 * options; the context sets a function's environment, never its code), so it is kept apart too, by
 * the digest of what is bundled (`code-<digest>/`): a build whose code is kept synthesizes without
 * esbuild and takes the code from there. Any synthesis that bundled can keep its code there
 * (`keepBundledCode`): the infra tests' `cdk synth` of the app does, so the stack of bundles that
 * runs after them in `npm test` builds nothing.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';

export interface BundledFunction {
  /** The topology's module path (`functions/deposits/create.ts`): the function's description. */
  handler: string;
  /** The bundle's entry, `index.mjs` in its asset directory. */
  file: string;
  /** The variables as the template writes them: strings, or references to other resources. */
  environment: Record<string, unknown>;
  timeoutSeconds: number;
  memoryMb: number;
}

const projectRoot = resolve(import.meta.dirname, '../../..');
export const bundlesCache = join(projectRoot, 'node_modules', '.cache', 'local-bundles');
/** The directories of the cache kept: others' starts may still run theirs. */
const KEEP = 3;

/** What is bundled: a change to any of it is other code. */
function codeDigest(): string {
  const hash = createHash('sha256');
  const files = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return path === join(projectRoot, 'infra', 'local') ? [] : files(path);
      return [path];
    });
  const inputs = [
    ...['functions', 'shared', 'infra'].flatMap((folder) => files(join(projectRoot, folder))),
    ...['package-lock.json', 'cdk.json', 'tsconfig.json'].map((file) => join(projectRoot, file)),
  ].sort();
  for (const file of inputs) hash.update(relative(projectRoot, file)).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

/** What is bundled, and the context it is synthesized with: a change to either is another build. */
function buildDigest(code: string, context: Record<string, string>): string {
  return createHash('sha256').update(code).update(JSON.stringify(context)).digest('hex').slice(0, 16);
}

/** The kept code of every function, for the code of one digest: `<handler's path, flattened>/index.mjs`. */
const codeDirectory = (code: string) => join(bundlesCache, `code-${code}`);
const codeFile = (handler: string) => join(handler.replaceAll('/', '__'), 'index.mjs');

type Resource = { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> };

/**
 * The bundles of the app synthesized with `context` over cdk.json's: from the cache when built
 * before with the same digest, else built now (one esbuild run for every function).
 */
export async function buildBundles(
  context: Record<string, string>,
  progress: (message: string) => void = () => {},
): Promise<Map<string, BundledFunction>> {
  const code = codeDigest();
  const directory = join(bundlesCache, buildDigest(code, context));
  const list = join(directory, 'functions.json');
  if (!existsSync(list)) {
    const kept = existsSync(join(codeDirectory(code), 'functions.json'));
    progress(
      kept
        ? `Synthesizing the function bundles' settings, their code kept from an earlier build, into ${directory}...`
        : `Building the function bundles as cdk synth does (one esbuild run for every function), into ${directory}...`,
    );
    const building = `${directory}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    try {
      const functions = await synthesizeInto(building, context, !kept);
      if (kept) {
        for (const fn of functions) {
          fn.file = codeFile(fn.handler);
          copyBundle(join(codeDirectory(code), dirname(fn.file)), join(building, dirname(fn.file)));
        }
      } else keepCode(building, functions, code);
      writeFileSync(join(building, 'functions.json'), JSON.stringify(functions));
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      throw error;
    }
    rmSync(directory, { recursive: true, force: true });
    renameSync(building, directory);
    prune(directory);
  }
  const functions = JSON.parse(readFileSync(list, 'utf8')) as BundledFunction[];
  return new Map(functions.map((fn) => [fn.handler, { ...fn, file: join(directory, fn.file) }]));
}

/**
 * Keeps the code of the functions bundled by a synthesis into `assemblyDir` (its templates name each
 * function's asset directory) for the code of what is bundled now: `cdk synth` of the app, as the
 * infra tests run it, so that a later stack of bundles need not bundle again.
 */
export function keepBundledCode(assemblyDir: string): void {
  const functions = readdirSync(assemblyDir)
    .filter((name) => name.endsWith('.template.json'))
    .flatMap((name) => functionsOf(JSON.parse(readFileSync(join(assemblyDir, name), 'utf8')) as Template));
  keepCode(assemblyDir, functions, codeDigest());
}

/** The functions whose code is kept for what is bundled now (their modules), if any is. */
export function keptFunctions(): string[] | undefined {
  const list = join(codeDirectory(codeDigest()), 'functions.json');
  return existsSync(list) ? (JSON.parse(readFileSync(list, 'utf8')) as string[]) : undefined;
}

/** Copies each function's bundle (its `file` under `from`) to the kept code of `code`, once. */
function keepCode(from: string, functions: BundledFunction[], code: string): void {
  const directory = codeDirectory(code);
  if (existsSync(join(directory, 'functions.json'))) return;
  const keeping = `${directory}.keeping-${process.pid}`;
  rmSync(keeping, { recursive: true, force: true });
  for (const fn of functions)
    copyBundle(join(from, dirname(fn.file)), join(keeping, dirname(codeFile(fn.handler))));
  writeFileSync(join(keeping, 'functions.json'), JSON.stringify(functions.map((fn) => fn.handler)));
  rmSync(directory, { recursive: true, force: true });
  renameSync(keeping, directory);
  prune(directory);
}

/** A function's bundle, its code and its source map, from one directory to another. */
function copyBundle(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of ['index.mjs', 'index.mjs.map']) copyFileSync(join(from, name), join(to, name));
}

type Template = { Resources: Record<string, Resource> };

/** The functions a template defines: each one's module, bundle, environment, timeout and memory. */
function functionsOf(template: Template): BundledFunction[] {
  return Object.values(template.Resources)
    .filter((resource) => resource.Type === 'AWS::Lambda::Function')
    .map((resource) => {
      const properties = resource.Properties ?? {};
      const variables = (properties.Environment as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables;
      return {
        handler: String(properties.Description),
        file: join(String(resource.Metadata?.['aws:asset:path']), 'index.mjs'),
        environment: variables ?? {},
        timeoutSeconds: Number(properties.Timeout ?? 3),
        memoryMb: Number(properties.MemorySize ?? 128),
      };
    });
}

async function synthesizeInto(
  outdir: string,
  context: Record<string, string>,
  bundle: boolean,
): Promise<BundledFunction[]> {
  // Only here: the CDK app is not the local stack's to load unless it runs bundles.
  const { App } = await import('aws-cdk-lib');
  const { defineDeployment } = await import('#infra/cdk/deployment');
  const cdkJson = JSON.parse(readFileSync(join(projectRoot, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  mkdirSync(outdir, { recursive: true });
  const app = new App({
    outdir,
    // As the CLI does: templates name their assets' directories.
    context: {
      ...cdkJson.context,
      'aws:cdk:enable-asset-metadata': true,
      // Without esbuild when the code is kept: the templates, for the functions' settings, alone.
      ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...context,
    },
  });
  defineDeployment(app);
  const assembly = app.synth();
  return assembly.stacks.flatMap((stack) => functionsOf(stack.template as Template));
}

/** Leaves the newest few builds, or kept codes (`keep`, the one just made, among them). */
function prune(keep: string): void {
  const isCode = (name: string) => name.startsWith('code-');
  const builds = readdirSync(bundlesCache)
    .filter((name) => isCode(name) === isCode(basename(keep)) && !/\.(building|keeping)-/.test(name))
    .map((name) => join(bundlesCache, name))
    .filter((path) => path !== keep)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  for (const old of builds.slice(KEEP - 1)) rmSync(old, { recursive: true, force: true });
}
