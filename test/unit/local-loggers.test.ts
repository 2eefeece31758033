/**
 * The local stack's handlers share one process: each invocation logs through a logger of its own
 * (`withOwnLogger`), so that two at once never borrow each other's function or service. The lines
 * are read where Powertools writes them (the process's stdout), captured here.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '#infra/local/lambda-context';
import { lineOf, logger, withOwnLogger } from '#shared/logger';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function capture(raw: string[] = []) {
  const lines: Record<string, unknown>[] = [];
  const write = (chunk: unknown) => {
    for (const line of String(chunk).split('\n')) {
      if (line) raw.push(line);
      if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
    }
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(write);
  vi.spyOn(process.stderr, 'write').mockImplementation(write);
  return lines;
}

// JSON unless a test asks for lines: a run whose stack set LOG_FORMAT for its workers is put back after.
const logFormat = process.env.LOG_FORMAT;
beforeEach(() => {
  delete process.env.LOG_FORMAT;
});

afterEach(() => {
  vi.restoreAllMocks();
  if (logFormat === undefined) delete process.env.LOG_FORMAT;
  else process.env.LOG_FORMAT = logFormat;
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

describe('readable lines at a terminal (LOG_FORMAT=lines, which the local stack sets)', () => {
  it('prints each line as time, level, service and function, message and its own keys; JSON otherwise', async () => {
    // prepare
    const handler = middy(async (event: { depositId: string }) => {
      logger.error('a deposit step kept failing', { depositId: event.depositId, step: 'transfer' });
    }).use(injectLambdaContext(logger));
    const raw: string[] = [];
    const json = capture(raw);

    // act
    process.env.LOG_FORMAT = 'lines';
    await withOwnLogger('deposits', () => handler({ depositId: 'dep_1' }, lambdaContext('steps-transfer')));
    delete process.env.LOG_FORMAT;
    await withOwnLogger('deposits', () => handler({ depositId: 'dep_2' }, lambdaContext('steps-transfer')));

    // assess
    const line = raw.find((text) => text.includes('dep_1'));
    expect(line).toMatch(
      /^\d{2}:\d{2}:\d{2}\.\d{3} ERROR deposits steps-transfer a deposit step kept failing depositId=dep_1 step=transfer$/,
    );
    expect(json.map((entry) => entry.depositId)).toEqual(['dep_2']);
  });

  it('keeps what a line says beyond the standard keys, objects as JSON', () => {
    const line = lineOf({
      level: 'WARN',
      message: 'sandbox fault injected',
      timestamp: '2026-11-25T19:54:25.358Z',
      service: 'sandbox',
      function_name: 'sandbox/metadata-get',
      function_arn: 'arn:aws:lambda:us-east-1:0:function:x',
      cold_start: false,
      outcome: 'error',
      rule: { phase: 'before', times: 1 },
    });

    expect(line).toBe(
      '19:54:25.358 WARN sandbox sandbox/metadata-get sandbox fault injected outcome=error rule={"phase":"before","times":1}',
    );
  });
});
