/**
 * A step queue's consumer: a try that fails before the last is logged with its error and its try,
 * and its record is reported failed (its message comes back), so a deposit that spends its tries
 * shows what spent each. A message sent without its deposit's trace (a re-drive, a follower's
 * wake) is worked in the trace the deposit keeps. The process's output is captured (the log lines as Lambda would ship them).
 */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FailContext } from '#shared/deposits/journey/transitions';
import type { Deposit } from '#shared/deposits/model/deposit';
import { currentTrace } from '#shared/tracing';
import { stepConsumer } from '#shared/wiring/step-consumer';

const context = { functionName: 'steps-resolve-bank', awsRequestId: 'req-1' } as Context;
const deposit = { id: 'dep_1', step: 'resolve-bank', status: 'initialized', version: 3 } as Deposit;

const depositTrace = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
const sweeperTrace = 'Root=1-6759e988-cd862e3fe1be46a994272794;Parent=63995c3f42cd8ad9;Sampled=1';

function record(receiveCount: number, trace?: string): SQSRecord {
  return {
    messageId: 'm-1',
    receiptHandle: 'r',
    body: JSON.stringify({
      depositId: 'dep_1',
      step: 'resolve-bank',
      version: 3,
      kind: 'run',
      ...(trace ? { trace } : {}),
    }),
    // The sender's own trace, as SQS carries it (a sweeper's run, for a re-drive).
    attributes: { ApproximateReceiveCount: String(receiveCount), AWSTraceHeader: sweeperTrace },
    messageAttributes: {},
  } as unknown as SQSRecord;
}

afterEach(() => vi.restoreAllMocks());

/** The process's output, captured until the test ends. */
function captureOutput() {
  const lines: string[] = [];
  for (const stream of [process.stdout, process.stderr])
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
  return lines;
}

/** The JSON log lines among what was captured. */
const jsonLines = (lines: string[]) =>
  lines
    .flatMap((line) => line.split('\n'))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('a step queue’s consumer', () => {
  it('logs a failed try before the last with its error and try, and hands its message back', async () => {
    // prepare: a step whose run fails, on the message's second try of five
    const lines = captureOutput();
    const consumer = stepConsumer(
      {
        step: 'resolve-bank',
        deposits: { get: async () => deposit },
        run: async () => {
          throw new Error('Transaction is ongoing for the item');
        },
      },
      { settings: { maxRedrives: 3 } } as unknown as FailContext,
    );

    // act: the batch's one record fails, so the whole batch comes back
    const answer = consumer({ Records: [record(2)] } as SQSEvent, context);

    // assess
    await expect(answer).rejects.toThrow(/All records failed processing/);
    expect(jsonLines(lines)).toContainEqual(
      expect.objectContaining({
        level: 'WARN',
        message: 'a deposit step try failed; its message comes back',
        depositId: 'dep_1',
        step: 'resolve-bank',
        version: 3,
        attempt: 2,
        error: 'Error: Transaction is ongoing for the item',
      }),
    );
  });

  it('logs a message for another step with what it names: its step, version and kind', async () => {
    // prepare: a transfer message on the resolve-bank queue (a copy sent to the wrong queue)
    const lines = captureOutput();
    const consumer = stepConsumer(
      { step: 'resolve-bank', deposits: { get: async () => deposit }, run: async () => undefined },
      { settings: { maxRedrives: 3 } } as unknown as FailContext,
    );
    const sent = {
      ...record(1),
      body: JSON.stringify({ depositId: 'dep_1', step: 'transfer', version: 3, kind: 'run' }),
    };

    // act
    const response = await consumer({ Records: [sent] } as SQSEvent, context);

    // assess: dropped, and the log line says which message (no field of it lost to a reserved key)
    expect(response).toEqual({ batchItemFailures: [] });
    expect(jsonLines(lines)).toContainEqual(
      expect.objectContaining({
        level: 'WARN',
        message: 'dropped a message for another step',
        step: 'resolve-bank',
        depositId: 'dep_1',
        dropped: { step: 'transfer', version: 3, kind: 'run' },
      }),
    );
    expect(lines.join('')).not.toMatch(/reserved key/);
  });

  it.for([
    { sent: 'without its trace (a re-drive)', trace: undefined, workedIn: depositTrace },
    { sent: 'with its trace', trace: depositTrace, workedIn: depositTrace },
  ])('works a message sent $sent in the deposit’s trace, not its sender’s', async ({ trace, workedIn }) => {
    // prepare: a deposit that keeps the trace its create started in
    const seen: (string | undefined)[] = [];
    const consumer = stepConsumer(
      {
        step: 'resolve-bank',
        deposits: { get: async () => ({ ...deposit, trace: depositTrace }) },
        run: async () => {
          seen.push(currentTrace());
        },
      },
      { settings: { maxRedrives: 3 } } as unknown as FailContext,
    );

    // act
    const response = await consumer({ Records: [record(1, trace)] } as SQSEvent, context);

    // assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(seen).toEqual([workedIn]);
  });
});
