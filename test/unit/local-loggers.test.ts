/**
 * The local stack's handlers share one process: each invocation logs through a logger of its own
 * (`withOwnLogger`), so that two at once never borrow each other's function or service. The lines
 * are read where Powertools writes them (the process's stdout), captured here.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '#infra/local/lambda-context';
import { logger, withOwnLogger } from '#shared/logger';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function capture() {
  const lines: Record<string, unknown>[] = [];
  const write = (chunk: unknown) => {
    for (const line of String(chunk).split('\n')) {
      if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
    }
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(write);
  vi.spyOn(process.stderr, 'write').mockImplementation(write);
  return lines;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a logger of its own per local invocation', () => {
  it('two invocations at once: each line names its own function and service', async () => {
    // prepare: a handler that logs once it has waited, while the other one starts
    const handler = middy(async (event: { say: string; waitMs: number }) => {
      await pause(event.waitMs);
      // ERROR: seen at any level a run sets (the e2e stack's setup sets POWERTOOLS_LOG_LEVEL=ERROR).
      logger.error(event.say);
    }).use(injectLambdaContext(logger));
    const lines = capture();

    // act
    await Promise.all([
      withOwnLogger('sandbox', () =>
        handler({ say: 'from the sandbox', waitMs: 30 }, lambdaContext('sandbox-faults-set')),
      ),
      withOwnLogger('deposits', () =>
        handler({ say: 'from the deposits', waitMs: 0 }, lambdaContext('deposits-get')),
      ),
    ]);

    // assess
    const said = lines.map((line) => [line.message, line.service, line.function_name]);
    expect(said).toEqual(
      expect.arrayContaining([
        ['from the sandbox', 'sandbox', 'sandbox-faults-set'],
        ['from the deposits', 'deposits', 'deposits-get'],
      ]),
    );
  });
});
