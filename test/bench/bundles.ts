/**
 * Bundles and cold starts: the app synthesized as `cdk synth` does (esbuild bundling every
 * function, the development stage with the sandbox), then, for each function, its bundle's size
 * (index.mjs, minified; the source map aside) and the time to import it in a fresh Node process with
 * the environment its stack gives it (NODE_OPTIONS included: Lambda starts Node with it).
 */
import { spawnSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { removeBuiltBundles } from '#infra/constructs/function-bundles';
import {
  configurations,
  environmentOf,
  functionsByHandler,
  stubEnvironment,
  synthesize,
} from '../infra/synth.ts';
import { percentile } from './flow.ts';

export interface BundleFigure {
  handler: string;
  bytes: number;
  /** Median of the fresh processes' import times, in ms. */
  importMs: number;
}

const loader = resolve(import.meta.dirname, 'cold-import.mjs');

export function measureBundles(options: { imports: number }): {
  figures: BundleFigure[];
  synthSeconds: number;
} {
  const started = performance.now();
  const { outdir, templates } = synthesize(configurations.devWithSandbox, { bundle: true });
  const synthSeconds = (performance.now() - started) / 1000;
  try {
    const figures = [templates.stateless, templates.sandbox].flatMap((template) =>
      template === undefined
        ? []
        : [...functionsByHandler(template)].map(([handler, { resource }]) => {
            const file = join(resolve(outdir, String(resource.Metadata?.['aws:asset:path'])), 'index.mjs');
            const environment = stubEnvironment(environmentOf(resource));
            const { NODE_OPTIONS = '', ...rest } = environment;
            const times: number[] = [];
            for (let run = 0; run < options.imports; run += 1) {
              const child = spawnSync(
                process.execPath,
                [...NODE_OPTIONS.split(' ').filter(Boolean), loader, file, JSON.stringify(rest)],
                { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
              );
              const line = child.stdout.trim().split('\n').pop() ?? '';
              if (child.status !== 0 || !line.startsWith('{'))
                throw new Error(`${handler} did not load: ${child.stderr.slice(0, 500)}`);
              times.push((JSON.parse(line) as { importMs: number }).importMs);
            }
            return { handler, bytes: statSync(file).size, importMs: percentile(times, 50) };
          }),
    );
    return { figures, synthSeconds };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
    removeBuiltBundles();
  }
}
