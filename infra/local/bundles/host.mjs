/**
 * One function's execution environment in the local stack's bundle mode (`processes.ts` starts it,
 * one Node process per function instance, with only the environment its stack gives it and the
 * NODE_OPTIONS its template sets): imports the bundle as Lambda's runtime does (its top-level awaits,
 * the secrets read at cold start, run now), then, for each `{ id, event, context }` its parent sends,
 * calls `handler(event, context)` with a Lambda-shaped context and sends back `{ id, result }`, or
 * `{ id, error }` when the handler threw or the bundle did not load. Each invocation has a trace of its
 * own in `_X_AMZN_TRACE_ID`, as Lambda gives it. Plain JavaScript: nothing of the project but the bundle.
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const [file] = process.argv.slice(2);
const loaded = import(pathToFileURL(file).href).then((module) => {
  if (typeof module.handler !== 'function') throw new Error(`${file} exports no handler`);
  return module.handler;
});
// Its failure is each invocation's (below), as a failed init is in Lambda.
loaded.catch(() => undefined);

function traceHeader() {
  const seconds = Math.floor(Date.now() / 1000)
    .toString(16)
    .padStart(8, '0');
  return `Root=1-${seconds}-${randomBytes(12).toString('hex')};Sampled=1`;
}

function lambdaContext(fields) {
  const { deadline, ...rest } = fields;
  return {
    ...rest,
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function described(error) {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { name: 'Error', message: String(error) };
}

// Its stack gone (stopped, or killed without a word), nothing is left to invoke it: it goes too.
process.on('disconnect', () => process.exit(0));

process.on('message', async ({ id, event, context }) => {
  try {
    const handler = await loaded;
    process.env._X_AMZN_TRACE_ID = traceHeader();
    const result = await handler(event, lambdaContext(context));
    process.send({ id, result });
  } catch (error) {
    process.send({ id, error: described(error) });
  }
});
