/**
 * Where the local stack's handlers come from: the one seam through which the gateways, the queue
 * pollers, the outbox relay and the sweeper get a function to invoke.
 *   sources  the TypeScript module (through tsx), in this process: the default, with every local
 *            tool (crash points, faults, the provider journal, the local clock, the trace journal)
 *   bundles  the bundle `cdk synth` builds for the function, in a Node process of its own with the
 *            environment its stack gives it (`bundles/`; `startLocalStack({ handlers: 'bundles' })`)
 * `instance` names an execution environment of its own (a poller's): another instance of the same
 * handler is another module instance (sources) or another process (bundles), with its own state.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { type HandlerName, handlerFile } from '#shared/topology';

export type HandlersMode = 'sources' | 'bundles';

/** A Lambda handler as the local stack invokes it (each caller names its own event and result). */
export type LocalHandler = (event: never, context: Context) => Promise<unknown>;

/** Gives the handler of a topology module path (`functions/...ts`), in the given environment. */
export type HandlerLoader = (modulePath: string, instance?: string) => Promise<LocalHandler>;

const projectRoot = resolve(import.meta.dirname, '../..');

/** The module itself, imported in this process (a query per instance: its own module state). */
export const sourceHandlers: HandlerLoader = async (modulePath, instance) => {
  const href = pathToFileURL(resolve(projectRoot, modulePath)).href;
  const module = (await import(instance ? `${href}?environment=${instance}` : href)) as {
    handler?: LocalHandler;
  };
  if (typeof module.handler !== 'function') throw new Error(`${modulePath} exports no handler`);
  return module.handler;
};

let current: HandlerLoader = sourceHandlers;

/** The loader the stack in this process uses from now on (one stack per process: its environment is too). */
export function useHandlers(loader: HandlerLoader): void {
  current = loader;
}

/** The handler `name` (its module, `handlerFile`) from the stack's loader (sources unless the stack runs bundles). */
export function loadHandler<H extends LocalHandler>(name: HandlerName, instance?: string): Promise<H> {
  return current(handlerFile(name), instance) as Promise<H>;
}
