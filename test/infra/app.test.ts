/**
 * The whole app, as `cdk synth` builds it: every configuration (both stages, with and without the
 * sandbox), with esbuild bundling every function on this machine (no Docker). Then the bundles: each
 * under its size budget (the functions that call no AWS service under the size target), carrying
 * only the AWS SDK clients of the services it may call, importing nothing from outside, and each
 * loads on Node as Lambda would
 * load it, with the environment its stack gives it (secrets read from a stand-in Secrets
 * Manager), and the health routes answer.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type FunctionSettings, functionSettings } from '#infra/cdk/settings';
import { projectRoot } from '#infra/constructs/bundle-options';
import { builtMetafile, removeBuiltBundles } from '#infra/constructs/function-bundles';
import { bundleBudgetBytes, bundleTargetBytes } from '#infra/constructs/handler-function';
import { keepBundledCode, keptFunctions } from '#infra/local/bundles/build';
import { depositsApi, handlerFile, queues, sandboxApi } from '#shared/topology';
import { bundleBreakdown } from './bundle-breakdown.ts';
import {
  configurations,
  environmentOf,
  functionsByHandler,
  nagFindings,
  type Synthesized,
  stacksOf,
  stubEnvironment,
  synthesize,
} from './synth.ts';

const outdir = mkdtempSync(join(tmpdir(), 'cdk-app-test-'));
const synthesized = {} as Record<keyof typeof configurations, Synthesized>;

beforeAll(() => {
  // One directory for all: one esbuild run bundles every function, and each configuration stages its code there.
  for (const [name, context] of Object.entries(configurations)) {
    synthesized[name as keyof typeof configurations] = synthesize(context, { bundle: true, outdir });
  }
  // The code bundled here is the local stack of bundles' code: kept, so that it builds none (`bundles`).
  keepBundledCode(outdir);
});

// The assembly (some 70 MB) and the bundles it was staged from: the kept code is a copy.
afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
  removeBuiltBundles();
});

interface Bundle {
  handler: string;
  directory: string;
  environment: Record<string, unknown>;
}

/** Each function's bundle directory and environment, in the given configurations. */
function bundles(...names: (keyof typeof configurations)[]): Bundle[] {
  return names.flatMap((name) => {
    const { templates } = synthesized[name];
    return [templates.stateless, templates.sandbox].flatMap((template) =>
      template === undefined
        ? []
        : [...functionsByHandler(template)].map(([name, { resource }]) => ({
            handler: handlerFile(name),
            directory: resolve(outdir, String(resource.Metadata?.['aws:asset:path'])),
            environment: environmentOf(resource),
          })),
    );
  });
}

describe('the app', () => {
  it.each(Object.keys(configurations))(
    'synthesizes %s, every stack, with no cdk-nag finding left',
    (name) => {
      const { deployment, app } = synthesized[name as keyof typeof configurations];
      const assembly = app.synth();

      const expected = stacksOf(deployment).map((stack) => stack.stackName);
      expect(assembly.stacks.map((stack) => stack.stackName).sort()).toEqual(expected.sort());
      expect(nagFindings(deployment)).toEqual([]);
      expect(deployment.stateful.terminationProtection).toBe(deployment.config.stage === 'prod');
    },
  );

  it('bundles every function once, as ES module with its source map', () => {
    for (const bundle of bundles('devWithSandbox', 'prodWithoutSandbox')) {
      expect(readdirSync(bundle.directory).sort(), bundle.handler).toEqual(['index.mjs', 'index.mjs.map']);
    }
  });

  it("keeps every function's code for the local stack of bundles, which then bundles nothing", () => {
    const handlers = new Set(bundles('devWithSandbox', 'prodWithoutSandbox').map((bundle) => bundle.handler));

    expect(new Set(keptFunctions())).toEqual(handlers);
  });
});

/**
 * A function's settings by its module (its function's description in the template), which the
 * settings name `handler` or `file`.
 */
function settingsOfModule(module: string): FunctionSettings {
  const settings = [...functionSettings.values()].find((candidate) => {
    const named = candidate as { handler?: string; file?: string };
    return (named.file ?? named.handler) === module;
  });
  if (!settings) throw new Error(`no function settings for ${module}`);
  return settings;
}

/** The AWS SDK clients a function may carry: those of the services its settings let it call. */
function clientsOf(module: string): string[] {
  const settings = settingsOfModule(module);
  const consumes = Object.values(queues).some((queue) =>
    [module, settings.name].includes(String(queue.handler)),
  );
  return [
    ...(settings.table || settings.index ? ['dynamodb'] : []),
    ...(settings.credentialsKey ? ['kms'] : []),
    ...(settings.createsSchedules || settings.deletesSchedules ? ['scheduler'] : []),
    ...(settings.secrets.length > 0 ? ['secrets-manager'] : []),
    // A consumer may change its own message's visibility (the notifier's backoff), which its event
    // source's grant covers.
    ...(settings.sendsTo.length > 0 ||
    (settings.sendsToDlqOf?.length ?? 0) > 0 ||
    settings.readsQueueDepths ||
    consumes
      ? ['sqs']
      : []),
  ].sort();
}

/**
 * Clients a function carries that it never calls, because the code that picks them decides at run
 * time: a handler's context is built from its line of `shared/deposits/reach.ts` (`handlerContext`),
 * so every function that builds one bundles every adapter of the wiring (the credential vault, the
 * scheduler, the queues, the owner key's secret), whichever of them its line names.
 */
function carriedUncalled(module: string): string[] {
  const source = readFileSync(resolve(projectRoot, module), 'utf8');
  return source.includes('handlerContext(') ? ['dynamodb', 'kms', 'scheduler', 'secrets-manager', 'sqs'] : [];
}

/** Every bundle of the development stage with the sandbox, from the metafile of the build that made them. */
let breakdownOnce: ReturnType<typeof bundleBreakdown> | undefined;
const breakdownOfAll = () => {
  const metafile = builtMetafile();
  if (!metafile) throw new Error('the synthesis built no bundles');
  breakdownOnce ??= bundleBreakdown(
    bundles('devWithSandbox').map((bundle) => bundle.handler),
    metafile,
  );
  return breakdownOnce;
};

describe('function bundles', () => {
  it(`stay within ${bundleBudgetBytes / 1024} KiB each (${bundleTargetBytes / 1024} KiB those that call no AWS service), import nothing from outside, and say where their bytes come from`, async () => {
    const sizes = bundles('devWithSandbox').map((bundle) => ({
      handler: bundle.handler,
      code: statSync(join(bundle.directory, 'index.mjs')).size,
      map: statSync(join(bundle.directory, 'index.mjs.map')).size,
    }));
    const kib = (bytes: number) => `${(bytes / 1024).toFixed(0).padStart(5)} KiB`;
    // esbuild's metafile, per package (the largest six of each bundle), so the next person sees where the bytes are.
    const breakdown = await breakdownOfAll();
    const packagesOf = (handler: string) => breakdown.get(handler)?.packages ?? [];
    const packages = (handler: string) =>
      packagesOf(handler)
        .slice(0, 6)
        .map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)}`)
        .join(', ');
    console.log(
      [
        `Function bundles (budget ${bundleBudgetBytes / 1024} KiB of code each, the AWS SDK included; target ${bundleTargetBytes / 1024} KiB; the source map is read at load, for readable stack traces), and their largest packages in KiB:`,
        ...sizes.map(
          (size) =>
            `  ${size.handler.padEnd(44)} ${kib(size.code)}  map ${kib(size.map)}  ${packages(size.handler)}`,
        ),
      ].join('\n'),
    );
    for (const size of sizes) expect(size.code, size.handler).toBeLessThanOrEqual(bundleBudgetBytes);
    // Those that call no AWS service (health, not found, the bank catalog) meet the target.
    const withoutAws = sizes.filter((size) => clientsOf(size.handler).length === 0);
    expect(withoutAws.length).toBeGreaterThanOrEqual(5);
    for (const size of withoutAws) expect(size.code, size.handler).toBeLessThanOrEqual(bundleTargetBytes);
    // Nothing is imported from outside a bundle (Node's own modules aside): not even the runtime's SDK.
    for (const size of sizes) expect(breakdown.get(size.handler)?.external, size.handler).toEqual([]);
    // The breakdown covers the whole bundle (esbuild's own bytes aside: the banner, the wrappers).
    for (const size of sizes) {
      const counted = packagesOf(size.handler).reduce((sum, [, bytes]) => sum + bytes, 0);
      expect(counted, size.handler).toBeGreaterThan(0.8 * size.code);
      expect(counted, size.handler).toBeLessThanOrEqual(size.code);
    }
  });

  it('carry only the AWS SDK clients of the services their settings let them call', async () => {
    const breakdown = await breakdownOfAll();
    expect(breakdown.size).toBeGreaterThan(40);
    for (const [handler, { clients: carried }] of breakdown) {
      const allowed = [...clientsOf(handler), ...carriedUncalled(handler)];
      expect(
        carried.filter((client) => !allowed.includes(client)),
        handler,
      ).toEqual([]);
    }
  });

  it('load on Node with the environment their stack gives them, and the health routes answer', () => {
    const all = bundles('devWithSandbox', 'prodWithoutSandbox');
    const healthHandlers = [depositsApi, sandboxApi].map((api) => {
      const health = api.routes.find((route) => route.path === '/health');
      return health && handlerFile(health.handler);
    });
    const script = resolve(import.meta.dirname, 'load-bundles.mjs');
    const input = all.map((bundle) => ({
      file: join(bundle.directory, 'index.mjs'),
      handler: bundle.handler,
      environment: stubEnvironment(bundle.environment),
      invoke: healthHandlers.includes(bundle.handler),
    }));
    expect(existsSync(script)).toBe(true);

    const resultsFolder = mkdtempSync(join(tmpdir(), 'bundles-'));
    onTestFinished(() => rmSync(resultsFolder, { recursive: true, force: true }));
    const resultsFile = join(resultsFolder, 'results.json');
    const run = spawnSync(process.execPath, ['--enable-source-maps', script, resultsFile], {
      input: JSON.stringify(input),
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    // A failure's stack trace, without the minified line Node quotes above it.
    expect(
      run.status,
      run.stderr
        .split('\n')
        .filter((line) => line.length < 400)
        .join('\n'),
    ).toBe(0);
    const results = JSON.parse(readFileSync(resultsFile, 'utf8')) as {
      handler: string;
      exported: string;
      secretsRead: number;
      statusCode?: number;
    }[];

    expect(results).toHaveLength(input.length);
    for (const result of results) {
      expect(result.exported, result.handler).toBe('function');
      if (healthHandlers.includes(result.handler)) expect(result.statusCode, result.handler).toBe(200);
    }
    // The sandbox functions and the notifier (with a webhook) read their secret at cold start; so
    // do the routes that take a caller's token (the owner key), and no other deposits function.
    const reading = results.filter((result) => result.secretsRead > 0).map((result) => result.handler);
    expect(reading).toContain('functions/notifier/deliver.ts');
    expect(reading).toContain('functions/sandbox/users-create.ts');
    const tokenRoutes = depositsApi.routes
      .filter((route) => /^\/v1\/(deposits|sources)\/(create|get|answer|list|cancel)$/.test(route.path))
      .map((route) => handlerFile(route.handler));
    expect(tokenRoutes).toHaveLength(9);
    const readingDeposits = results
      .filter(
        (result) =>
          result.secretsRead > 0 && /^functions\/(deposits|sources|operator|steps)\//.test(result.handler),
      )
      .map((result) => result.handler);
    expect([...new Set(readingDeposits)].sort()).toEqual([...tokenRoutes].sort());
  });
});
