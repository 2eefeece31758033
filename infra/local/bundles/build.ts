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
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, resolve } from 'node:path';

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

/** What is bundled, and what decides how: a change to any of it is another build. */
function sourceDigest(context: Record<string, string>): string {
  const hash = createHash('sha256').update(JSON.stringify(context));
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

type Resource = { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> };

/**
 * The bundles of the app synthesized with `context` over cdk.json's: from the cache when built
 * before with the same digest, else built now (a minute or more: esbuild, once per function).
 */
export async function buildBundles(
  context: Record<string, string>,
  progress: (message: string) => void = () => {},
): Promise<Map<string, BundledFunction>> {
  const key = sourceDigest(context);
  const directory = join(bundlesCache, key);
  const list = join(directory, 'functions.json');
  if (!existsSync(list)) {
    progress(
      `Building the function bundles as cdk synth does (esbuild, once per function), into ${directory}...`,
    );
    const building = `${directory}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    try {
      const functions = await synthesizeInto(building, context);
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

async function synthesizeInto(outdir: string, context: Record<string, string>): Promise<BundledFunction[]> {
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
    context: { ...cdkJson.context, 'aws:cdk:enable-asset-metadata': true, ...context },
  });
  defineDeployment(app);
  const assembly = app.synth();
  return assembly.stacks.flatMap((stack) =>
    Object.values((stack.template as { Resources: Record<string, Resource> }).Resources)
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
      }),
  );
}

/** Leaves the newest few builds (this one among them). */
function prune(keep: string): void {
  const builds = readdirSync(bundlesCache)
    .map((name) => join(bundlesCache, name))
    .filter((path) => path !== keep && !path.includes('.building-'))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  for (const old of builds.slice(KEEP - 1)) rmSync(old, { recursive: true, force: true });
}
