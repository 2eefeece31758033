/**
 * The Powertools logger, created once per process. Request bodies are never logged: they hold secrets.
 * Its service name is Powertools' own `POWERTOOLS_SERVICE_NAME` (set by the stacks), read by
 * Powertools itself: the logger loads no configuration module, so the smallest handlers (health,
 * not-found) stay small.
 *
 * In AWS a process runs one invocation at a time, and the one logger carries its context. The local
 * stack runs every handler in one process, invocations side by side: there each runs inside
 * `withOwnLogger`, and `logger` is then that invocation's own child (its service, its Lambda
 * context), so that no line names another function than the one that wrote it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';

const processLogger = new Logger();
const invocation = new AsyncLocalStorage<Logger>();

/** Runs one invocation with a logger of its own, of `serviceName` (the local stack's handlers). */
export function withOwnLogger<T>(serviceName: string, work: () => T): T {
  return invocation.run(processLogger.createChild({ serviceName }), work);
}

/** The invocation's own logger where it has one (`withOwnLogger`), else the process's. */
export const logger: Logger = new Proxy(processLogger, {
  get(target, key) {
    const current = invocation.getStore() ?? target;
    const value = Reflect.get(current, key, current);
    return typeof value === 'function' ? value.bind(current) : value;
  },
});
