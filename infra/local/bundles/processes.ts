/**
 * The bundles' execution environments on the local stack: each instance of a function (the gateway's
 * one per route, each poller's own, the outbox relay's, the sweeper's) is a Node process of its own
 * (`host.mjs`), started on its first invocation (a cold start), with exactly the environment its
 * template gives it (`environment.ts`) and no project code but its bundle: no tsx, no loader, nothing
 * of the stack's process. A process, not a module in the stack's process, because `process.env` is
 * one per process (each function has its own trimmed environment, and reads it at import) and so is
 * module state; a thread would share neither NODE_OPTIONS nor a crash's consequences with Lambda.
 *
 * An invocation that fails fails its caller, as Lambda's would: the handler's error (or the bundle's
 * failure to load) is thrown where the stack awaited the handler (the gateway answers 500, a poller
 * fails the batch, the stream poller retries); an invocation past the function's timeout kills its
 * process ("Task timed out"), and a process that died fails what it had in hand. The next invocation
 * starts a new process, as Lambda starts a new environment.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { resolve } from 'node:path';
import type { Context } from 'aws-lambda';
import type { HandlerLoader, LocalHandler } from '../handlers.ts';
import type { BundledFunction } from './build.ts';

const host = resolve(import.meta.dirname, 'host.mjs');

/** The error of an invocation that failed in a bundle (its message names the function). */
export class BundleInvocationError extends Error {
  constructor(handler: string, cause: { name: string; message: string; stack?: string }) {
    super(`${handler}: ${cause.name}: ${cause.message}`);
    this.name = 'BundleInvocationError';
    if (cause.stack) this.stack = `${this.name}: ${this.message}\n(in the bundle) ${cause.stack}`;
  }
}

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

type Reply = { id: number; result?: unknown; error?: { name: string; message: string; stack?: string } };

export interface BundleProcesses {
  loader: HandlerLoader;
  /** Processes started so far (cold starts), by handler. */
  started(): Record<string, number>;
  stop(): Promise<void>;
}

/**
 * `functions`: the bundles by topology path; `environmentOf`: a function's environment, asked when
 * its process starts (the stack's values are all known by its first invocation).
 */
export function bundleProcesses(
  functions: ReadonlyMap<string, BundledFunction>,
  environmentOf: (fn: BundledFunction) => Record<string, string>,
): BundleProcesses {
  const children = new Set<ChildProcess>();
  const started: Record<string, number> = {};
  let nextId = 0;

  function environment(fn: BundledFunction): LocalHandler {
    let child: ChildProcess | undefined;
    const pending = new Map<number, Pending>();
    const fail = (error: Error) => {
      for (const [id, one] of pending) {
        clearTimeout(one.timer);
        pending.delete(id);
        one.reject(error);
      }
    };
    const spawned = (): ChildProcess => {
      if (child && !child.killed && child.exitCode === null && child.signalCode === null) return child;
      const env = environmentOf(fn);
      const one = fork(host, [fn.file], {
        env,
        execArgv: [],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      started[fn.handler] = (started[fn.handler] ?? 0) + 1;
      children.add(one);
      one.on('message', (reply: Reply) => {
        const waiting = pending.get(reply.id);
        if (!waiting) return;
        pending.delete(reply.id);
        clearTimeout(waiting.timer);
        if (reply.error) waiting.reject(new BundleInvocationError(fn.handler, reply.error));
        else waiting.resolve(reply.result);
      });
      one.on('exit', (code, signal) => {
        children.delete(one);
        if (child === one) child = undefined;
        fail(
          new Error(`${fn.handler}: its process exited (${signal ?? `code ${code}`}) during the invocation`),
        );
      });
      child = one;
      return one;
    };
    return (event: never, context: Context) =>
      new Promise((resolveResult, rejectResult) => {
        const worker = spawned();
        const id = nextId++;
        const timeoutMs = fn.timeoutSeconds * 1000;
        const timer = setTimeout(() => {
          // As Lambda does: the environment is gone; its next invocation is a cold start.
          pending.delete(id);
          worker.kill('SIGKILL');
          rejectResult(new Error(`${fn.handler}: Task timed out after ${fn.timeoutSeconds} seconds`));
        }, timeoutMs);
        pending.set(id, { resolve: resolveResult, reject: rejectResult, timer });
        const fields = {
          functionName: context.functionName,
          functionVersion: context.functionVersion,
          invokedFunctionArn: context.invokedFunctionArn,
          memoryLimitInMB: String(fn.memoryMb),
          awsRequestId: context.awsRequestId,
          logGroupName: context.logGroupName,
          logStreamName: context.logStreamName,
          deadline: Date.now() + timeoutMs,
        };
        worker.send({ id, event, context: fields }, (error) => {
          if (error) fail(error);
        });
      });
  }

  return {
    loader: async (modulePath) => {
      const fn = functions.get(modulePath);
      if (!fn) throw new Error(`${modulePath}: no bundle of that handler in the synthesized app`);
      return environment(fn);
    },
    started: () => ({ ...started }),
    async stop() {
      await Promise.all(
        [...children].map(
          (one) =>
            new Promise<void>((done) => {
              if (one.exitCode !== null || one.signalCode !== null) return done();
              one.once('exit', () => done());
              one.kill('SIGKILL');
            }),
        ),
      );
    },
  };
}
