/**
 * Where a function bundle's bytes come from: esbuild's metafile of the build that made the bundles
 * (or of the handlers bundled again with the options of infra/constructs/bundle-options.ts: minified
 * ESM for Node 22, the AWS SDK bundled, its aliases), each output's input bytes summed by npm package
 * (`@aws-sdk/*` and `@smithy/*` counted as scopes; `(project)` for this repository's own code), the
 * AWS SDK clients it carries, and the packages it imports from outside the bundle (none: Lambda's
 * runtime provides nothing we use).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { bundleOptions, projectRoot } from '#infra/constructs/bundle-options';

/** The package an input path of the metafile belongs to. */
export function packageOf(input: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input.slice(input.lastIndexOf('node_modules/')));
  if (!match?.[1]) return '(project)';
  const name = match[1];
  return name.startsWith('@aws-sdk/') || name.startsWith('@smithy/') ? `${name.split('/')[0]}/*` : name;
}

export interface BundleBreakdown {
  /** Bytes by package, largest first. */
  packages: [string, number][];
  /** The packages imported from outside the bundle (Node's own modules aside), sorted. */
  external: string[];
  /** The AWS SDK clients with code in the bundle, by service (`dynamodb`, `sqs`, `kms`...), sorted. */
  clients: string[];
}

/**
 * Each handler's bundle: its bytes by package, and what it leaves to the runtime; from the metafile
 * of the build that made the bundles when given (`builtMetafile`), else bundled again here.
 */
export async function bundleBreakdown(
  handlers: string[],
  built?: Metafile,
): Promise<Map<string, BundleBreakdown>> {
  const metafile = built ?? (await bundledAgain(handlers));
  const breakdown = new Map<string, BundleBreakdown>();
  for (const meta of Object.values(metafile.outputs)) {
    const handler = meta.entryPoint;
    if (handler === undefined || !handlers.includes(handler)) continue;
    const byPackage = new Map<string, number>();
    const clients = new Set<string>();
    for (const [input, { bytesInOutput }] of Object.entries(meta.inputs)) {
      const name = packageOf(relative(projectRoot, resolve(projectRoot, input)));
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
      const client = /node_modules\/@aws-sdk\/client-([a-z0-9-]+)\//.exec(input)?.[1];
      if (client && bytesInOutput > 0) clients.add(client);
    }
    const external = meta.imports
      .filter((imported) => imported.external && !isBuiltin(imported.path))
      .map((imported) => imported.path);
    breakdown.set(handler, {
      packages: [...byPackage].sort((a, b) => b[1] - a[1]),
      external: [...new Set(external)].sort(),
      clients: [...clients].sort(),
    });
  }
  return breakdown;
}

/** The handlers bundled again, in one build with a metafile (nothing written). */
async function bundledAgain(handlers: string[]): Promise<Metafile> {
  const outdir = mkdtempSync(join(tmpdir(), 'bundle-breakdown-'));
  try {
    const { metafile } = await build({
      absWorkingDir: projectRoot,
      entryPoints: Object.fromEntries(
        handlers.map((handler, index) => [`f${index}`, resolve(projectRoot, handler)]),
      ),
      outdir,
      outExtension: { '.js': '.mjs' },
      ...bundleOptions,
      // No source map: the breakdown reads the code's inputs alone.
      sourcemap: false,
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    return metafile;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
