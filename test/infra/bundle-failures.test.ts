/**
 * A bundle that cannot handle its event fails the stack's call, never silently: the bundle mode's
 * execution environments (`infra/local/bundles/processes.ts`) over bundles written here, each in a
 * process of its own: a handler that throws, a bundle that fails to load (as one whose secret cannot
 * be read at cold start), a process that dies mid-invocation, one past its timeout; then through a
 * gateway, where such an invocation is the caller's 500, and a queue poller, which deletes none of a
 * batch the bundle threw on (it comes back after the visibility timeout). And what a bundle's process
 * holds: only the environment it is given, and its own module state.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import type { BundledFunction } from '#infra/local/bundles/build';
import { bundleProcesses } from '#infra/local/bundles/processes';
import { startGateway } from '#infra/local/gateway';
import { sourceHandlers, useHandlers } from '#infra/local/handlers';
import { lambdaContext } from '#infra/local/lambda-context';
import { startPollers } from '#infra/local/pollers';
import type { HandlerName, QueueSpec } from '#shared/topology';

const folder = mkdtempSync(join(tmpdir(), 'bundle-failures-'));

/** A bundle of its own (an `index.mjs` in its folder) from the given module text. */
function bundle(handler: string, text: string, timeoutSeconds = 5): BundledFunction {
  const directory = mkdtempSync(join(folder, 'asset.'));
  const file = join(directory, 'index.mjs');
  writeFileSync(file, text);
  return { handler, file, environment: {}, timeoutSeconds, memoryMb: 128 };
}

const functions = new Map(
  [
    bundle(
      'throws.ts',
      'export const handler = async () => { throw new TypeError("cannot read the event"); };',
    ),
    bundle(
      'no-secret.ts',
      'throw new Error("OWNER_KEY_SECRET_ARN: the secret has no value");\nexport const handler = async () => 1;',
    ),
    bundle('no-handler.ts', 'export const notHandler = 1;'),
    bundle(
      'dies.ts',
      'let calls = 0; export const handler = async (event) => { calls += 1; if (event.die) process.exit(3); return { calls, pid: process.pid }; };',
    ),
    bundle('hangs.ts', 'export const handler = () => new Promise(() => {});', 1),
    bundle(
      'environment.ts',
      'export const handler = async (event, context) => ({ env: { ...process.env }, remaining: context.getRemainingTimeInMillis(), name: context.functionName });',
    ),
    bundle(
      'functions/bundled/consumer.ts',
      'export const handler = async (event) => { if (event.Records.some((r) => r.body === "bad")) throw new Error("cannot handle the batch"); return { batchItemFailures: [] }; };',
    ),
    bundle(
      'functions/bundled/route.ts',
      'export const handler = async (event) => { if (event.rawPath === "/broken") throw new Error("cannot handle it"); return { statusCode: 200, body: "{\\"ok\\":true}" }; };',
    ),
  ].map((fn) => [fn.handler, fn]),
);
const processes = bundleProcesses(functions, (fn) => ({ PATH: process.env.PATH ?? '', OWN: fn.handler }));
afterAll(async () => {
  await processes.stop();
  rmSync(folder, { recursive: true, force: true });
});

const invoke = async (handler: string, event: object = {}) => {
  const fn = await processes.loader(handler);
  return fn(event as never, lambdaContext(handler));
};

describe('an invocation of a bundle', () => {
  it('fails with the handler’s error, naming the function', async () => {
    await expect(invoke('throws.ts')).rejects.toThrow('throws.ts: TypeError: cannot read the event');
  });

  it('fails when the bundle does not load or exports no handler, as a failed init does', async () => {
    await expect(invoke('no-secret.ts')).rejects.toThrow('OWNER_KEY_SECRET_ARN: the secret has no value');
    await expect(invoke('no-handler.ts')).rejects.toThrow('exports no handler');
  });

  it('fails when its process dies, and the next one is a new process (a cold start)', async () => {
    const fn = await processes.loader('dies.ts');
    const call = (event: object) => fn(event as never, lambdaContext('dies.ts'));
    const first = (await call({})) as { calls: number; pid: number };
    await expect(call({ die: true })).rejects.toThrow('its process exited (code 3)');
    const after = (await call({})) as { calls: number; pid: number };

    expect(first.calls).toBe(1);
    expect(after.calls).toBe(1);
    expect(after.pid).not.toBe(first.pid);
  });

  it('fails past the function’s timeout', async () => {
    await expect(invoke('hangs.ts')).rejects.toThrow('hangs.ts: Task timed out after 1 seconds');
  });

  it('runs with only the environment it is given and a Lambda-shaped context; each instance its own state', async () => {
    const seen = (await invoke('environment.ts')) as {
      env: Record<string, string>;
      remaining: number;
      name: string;
    };
    const one = await processes.loader('dies.ts', 'a');
    const other = await processes.loader('dies.ts', 'b');
    const calls = async (instance: typeof one) =>
      ((await instance({} as never, lambdaContext('dies.ts'))) as { calls: number }).calls;
    const counts = [await calls(one), await calls(one), await calls(other)];

    expect(Object.keys(seen.env).sort()).toEqual(expect.arrayContaining(['OWN', 'PATH']));
    expect(seen.env.OWN).toBe('environment.ts');
    expect(seen.env._X_AMZN_TRACE_ID).toMatch(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24};Sampled=1$/);
    expect(Object.keys(seen.env).filter((name) => name.startsWith('VITEST'))).toEqual([]);
    expect(seen.remaining).toBeGreaterThan(4_000);
    expect(seen.name).toBe('environment.ts');
    // One instance keeps its module state between invocations; another instance has its own.
    expect(counts).toEqual([1, 2, 1]);
  });
});

describe('a gateway over bundles', () => {
  it('answers 500 when the bundle cannot handle the request, 200 when it can', async () => {
    useHandlers(processes.loader);
    const gateway = await startGateway(
      {
        name: 'bundled',
        tables: [],
        defaultHandler: 'bundled-route' as HandlerName,
        routes: [{ method: 'GET', path: '/ok', handler: 'bundled-route' as HandlerName }],
      },
      '127.0.0.1',
      0,
    ).finally(() => useHandlers(sourceHandlers));
    try {
      const ok = await fetch(`${gateway.url}/ok`);
      const broken = await fetch(`${gateway.url}/broken`);

      expect(ok.status).toBe(200);
      expect(broken.status).toBe(500);
      expect(await broken.json()).toMatchObject({ type: 'INTERNAL_ERROR' });
    } finally {
      await gateway.close();
    }
  });
});

describe('a queue poller over bundles', () => {
  /** One receive of these bodies, then empty ones; the deletes the poller sends. */
  async function pollOnce(bodies: string[]) {
    const deleted: string[] = [];
    let receives = 0;
    const client = {
      send: async (command: { input: Record<string, unknown> }) => {
        if ('Entries' in command.input) {
          deleted.push(...(command.input.Entries as { ReceiptHandle: string }[]).map((e) => e.ReceiptHandle));
          return {};
        }
        receives += 1;
        if (receives > 1) return new Promise((done) => setTimeout(() => done({ Messages: [] }), 50));
        return {
          Messages: bodies.map((Body, index) => ({
            MessageId: `m${index}`,
            ReceiptHandle: `r${index}`,
            Body,
          })),
        };
      },
    } as unknown as SQSClient;
    const spec: QueueSpec = {
      urlEnvVar: 'BUNDLED_QUEUE_URL',
      localName: 'bundled',
      handler: 'bundled-consumer' as HandlerName,
      maxReceiveCount: 3,
      batchSize: 10,
      maxConcurrency: 1,
    };
    useHandlers(processes.loader);
    try {
      const pollers = await startPollers(
        client,
        [
          {
            spec,
            name: 'bundled',
            url: 'http://queue.local/bundled',
            arn: 'arn:aws:sqs:us-east-1:0:bundled',
          },
        ],
        { concurrency: 1, environment: 'bundled' },
      );
      // The batch handed over (a cold start first) and answered: the poller receives again.
      const deadline = Date.now() + 20_000;
      while (receives < 2 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
      await pollers.stop();
      expect(receives).toBeGreaterThanOrEqual(2);
    } finally {
      useHandlers(sourceHandlers);
    }
    return deleted;
  }

  it('deletes nothing of a batch the bundle cannot handle (it comes back, as in Lambda), and a handled one', async () => {
    expect(await pollOnce(['good', 'bad'])).toEqual([]);
    expect(await pollOnce(['good', 'fine'])).toEqual(['r0', 'r1']);
  });
});
