/**
 * A step queue's consumer: a try that fails before the last is logged with its error and its try,
 * and its record is reported failed (its message comes back), so a deposit that spends its tries
 * shows what spent each. The process's output is captured (the log lines as Lambda would ship them).
 */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FailContext } from '#shared/deposits/journey/transitions';
import type { Deposit } from '#shared/deposits/model/deposit';
import { stepConsumer } from '#shared/wiring/step-consumer';

const context = { functionName: 'steps-resolve-bank', awsRequestId: 'req-1' } as Context;
const deposit = { id: 'dep_1', step: 'resolve-bank', status: 'initialized', version: 3 } as Deposit;

function record(receiveCount: number): SQSRecord {
  return {
    messageId: 'm-1',
    receiptHandle: 'r',
    body: JSON.stringify({ depositId: 'dep_1', step: 'resolve-bank', version: 3, kind: 'run' }),
    attributes: { ApproximateReceiveCount: String(receiveCount) },
    messageAttributes: {},
  } as unknown as SQSRecord;
}

afterEach(() => vi.restoreAllMocks());

describe('a step queue’s consumer', () => {
  it('logs a failed try before the last with its error and try, and hands its message back', async () => {
    // prepare: a step whose run fails, on the message's second try of five
    const lines: string[] = [];
    for (const stream of [process.stdout, process.stderr])
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        lines.push(String(chunk));
        return true;
      });
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
    const logged = lines
      .flatMap((line) => line.split('\n'))
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toContainEqual(
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
});
