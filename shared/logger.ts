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
 *
 * Lines are JSON (CloudWatch Logs Insights reads them); with `LOG_FORMAT=lines`, which `npm start`
 * and the test stacks set, each is one readable line instead: time, level, service and function,
 * message, then the line's own keys (`lineOf`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Console } from 'node:console';
import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import type { LogLevel } from '@aws-lambda-powertools/logger/types';

/** The keys every line carries that a reader at a terminal does not need. */
const noise = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'function_name',
  'function_arn',
  'function_memory_size',
  'function_request_id',
  'sampling_rate',
  'cold_start',
  'xray_trace_id',
]);

/**
 * One log line's attributes as a line a person reads: `12:00:01.123 WARN deposits steps/transfer
 * message key=value`; its trace id (`trace_id`: the deposit's, else the invocation's) among them.
 */
export function lineOf(attributes: Record<string, unknown>): string {
  if (attributes.trace_id === undefined && attributes.xray_trace_id !== undefined)
    attributes = { ...attributes, trace_id: attributes.xray_trace_id };
  const time = String(attributes.timestamp ?? '').slice(11, 23);
  const where = [attributes.service, attributes.function_name].filter(Boolean).join(' ');
  const keys = Object.entries(attributes)
    .filter(([key, value]) => !noise.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [time, String(attributes.level ?? ''), where, String(attributes.message ?? ''), ...keys]
    .filter(Boolean)
    .join(' ');
}

/** Where the lines go: the process's own streams, as Powertools writes its JSON. */
const terminal = new Console({ stdout: process.stdout, stderr: process.stderr });

class ProcessLogger extends Logger {
  protected override createLogger(options?: ConstructorParameters<typeof Logger>[0]): Logger {
    return new ProcessLogger(options);
  }

  protected override printLog(logLevel: number, log: LogItem): void {
    if (process.env.LOG_FORMAT !== 'lines') {
      super.printLog(logLevel, log);
      return;
    }
    log.prepareForPrint();
    const line = lineOf(log.getAttributes() as Record<string, unknown>);
    if (logLevel >= 20) terminal.error(line);
    else if (logLevel >= 16) terminal.warn(line);
    else terminal.log(line);
  }
}

const processLogger = new ProcessLogger();
const invocation = new AsyncLocalStorage<Logger>();

/**
 * Runs one invocation with a logger of its own, of `serviceName` (the local stack's handlers); at
 * `logLevel` when given (the local operator API's, quieter unless its audit lines are asked for).
 */
export function withOwnLogger<T>(
  serviceName: string,
  work: () => T,
  options: { logLevel?: LogLevel } = {},
): T {
  return invocation.run(processLogger.createChild({ serviceName, ...options }), work);
}

/**
 * Runs `work` with a logger whose every line carries `keys` (a record's deposit id and trace id),
 * a child of the current one: records worked side by side each keep their own.
 */
export function withLogKeys<T>(keys: Record<string, string>, work: () => T): T {
  const current = invocation.getStore() ?? processLogger;
  return invocation.run(current.createChild({ persistentKeys: keys }), work);
}

/** The invocation's own logger where it has one (`withOwnLogger`), else the process's. */
export const logger: Logger = new Proxy(processLogger, {
  get(target, key) {
    const current = invocation.getStore() ?? target;
    const value = Reflect.get(current, key, current);
    return typeof value === 'function' ? value.bind(current) : value;
  },
});
