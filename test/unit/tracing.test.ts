/**
 * A deposit's one trace (`shared/tracing.ts`): the header read from input and kept in its own form,
 * a consumer's record worked in the trace its message carries (its body's first, then the record's
 * `AWSTraceHeader`), the messages built from a deposit carrying its trace, and every log line of the
 * record's work naming the deposit and the trace id. The Tracer itself is off outside Lambda, as
 * Powertools decides; what crosses the local stack's processes is test/e2e/traces.test.ts.
 */
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { messageFor } from '#shared/deposits/model/messages';
import { logger } from '#shared/logger';
import { sqsConsumer } from '#shared/middleware/sqs';
import { currentTrace, onDepositTrace, traceHeaderOf, traceIdOf } from '#shared/tracing';

const root = '1-6b08921e-2bf905bd60240946f3b91df9';
const header = `Root=${root};Parent=53995c3f42cd8ad8;Sampled=1`;
const other = 'Root=1-6b08921f-000000000000000000000001;Sampled=0';

const context = { functionName: 'steps-transfer', awsRequestId: 'req-1' } as Context;

function record(body: unknown, attributes: Record<string, string> = {}): SQSRecord {
  return {
    messageId: String(Math.random()),
    receiptHandle: 'r',
    body: JSON.stringify(body),
    attributes: { ApproximateReceiveCount: '1', ...attributes },
    messageAttributes: {},
  } as unknown as SQSRecord;
}

describe('trace headers', () => {
  it.each([
    [header, header],
    [`Root=${root}`, `Root=${root}`],
    // Kept: the root, the parent and the sampling decision; dropped: what else a header may carry.
    [`Root=${root};Sampled=1;Lineage=a87bd80c:1`, `Root=${root};Sampled=1`],
  ])('keeps %s as %s', (given, kept) => {
    expect(traceHeaderOf(given)).toBe(kept);
    expect(traceIdOf(kept)).toBe(root);
  });

  it.each([
    ['a root that is not one', 'Root=1-xyz'],
    ['no root', 'Parent=53995c3f42cd8ad8;Sampled=1'],
    ['a field it does not know', `Root=${root};Evil=1`],
    ['too long', `Root=${root};Sampled=1${';Sampled=1'.repeat(30)}`],
    ['not a string', 42],
  ])('refuses %s', (_, given) => {
    expect(traceHeaderOf(given)).toBeUndefined();
  });

  it("builds a deposit's messages with its trace, and without one when it has none", () => {
    expect(messageFor({ id: 'dep_1', version: 3, trace: header }, 'transfer')).toEqual({
      depositId: 'dep_1',
      step: 'transfer',
      version: 3,
      kind: 'run',
      trace: header,
    });
    expect(messageFor({ id: 'dep_1', version: 3 }, 'reconcile', 'expire-input')).not.toHaveProperty('trace');
  });
});

describe('a consumer in the deposit’s trace', () => {
  const seen: { depositId: string; trace: string | undefined }[] = [];
  onDepositTrace((entry) => seen.push(entry));
  const lines: string[] = [];
  beforeEach(() => {
    seen.length = 0;
    lines.length = 0;
    process.env.LOG_FORMAT = 'lines';
    for (const stream of [process.stdout, process.stderr])
      vi.spyOn(stream, 'write').mockImplementation((chunk) => {
        lines.push(String(chunk));
        return true;
      });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    delete process.env.LOG_FORMAT;
  });

  const Message = z.object({ depositId: z.string(), trace: z.string().optional() });
  const traces: (string | undefined)[] = [];
  const handler = sqsConsumer(
    Message,
    async (message) => {
      traces.push(currentTrace());
      // At error level: a run's workers may have a quieter level from the stack started before them.
      logger.error('worked', { about: message.depositId });
    },
    { depositOf: (message) => message.depositId, traceOf: (message) => message.trace },
  );

  it('works each record in its own trace: its body’s, else its AWSTraceHeader', async () => {
    // prepare: three records side by side, of three deposits
    traces.length = 0;
    const event: SQSEvent = {
      Records: [
        record({ depositId: 'dep_body', trace: header }, { AWSTraceHeader: other }),
        record({ depositId: 'dep_attribute' }, { AWSTraceHeader: other }),
        record({ depositId: 'dep_bad', trace: 'Root=forged' }),
      ],
    };

    // act
    const response = await handler(event, context);

    // assess
    expect(response).toEqual({ batchItemFailures: [] });
    const byDeposit = Object.fromEntries(seen.map((entry) => [entry.depositId, entry.trace]));
    expect(byDeposit).toEqual({ dep_body: header, dep_attribute: other, dep_bad: undefined });
    expect(traces.sort()).toEqual([header, other, undefined].sort());
    const line = lines.find((text) => text.includes('about=dep_body'));
    expect(line).toContain('depositId=dep_body');
    expect(line).toContain(`trace_id=${root}`);
    expect(lines.find((text) => text.includes('about=dep_attribute'))).toContain(
      `trace_id=${traceIdOf(other)}`,
    );
  });
});
