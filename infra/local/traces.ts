/**
 * Traces on the local stack, as Lambda gives them: each invocation runs with a trace of its own (the
 * runtime's store, which Powertools reads: its log lines carry the id), and a message's
 * `AWSTraceHeader` reaches its consumer's record. fauxqs keeps no message system attribute, so the
 * SQS clients' sends copy that one into a message attribute of the local stack's own, which the
 * pollers turn back into the record's `AWSTraceHeader` (`traceHeaderOfMessage`).
 *
 * And a journal, for tests: each deposit a function worked on (`onDepositTrace` of
 * shared/tracing.ts), in which trace, by which function; read through `POST /_local/traces`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { Message, SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { onClientCreated } from '#shared/adapters/clients';
import { onDepositTrace, traceHeaderOf, traceIdOf } from '#shared/tracing';

/** The message attribute that stands in for the `AWSTraceHeader` system attribute on fauxqs. */
const LOCAL_TRACE_ATTRIBUTE = 'local-aws-trace-header';

/** Lambda's store of the invocation's request id and trace (concurrent invocations: one per async context). */
const store = await InvokeStore.getInstanceAsync(true);
const functions = new AsyncLocalStorage<string>();

/** A new trace, sampled: `Root=1-<epoch seconds, hex>-<96 random bits, hex>;Sampled=1`. */
export function newTraceHeader(): string {
  const seconds = Math.floor(Date.now() / 1000)
    .toString(16)
    .padStart(8, '0');
  return `Root=1-${seconds}-${randomBytes(12).toString('hex')};Sampled=1`;
}

/** Runs one invocation of a handler in its own trace, as Lambda does. */
export function inInvocation<T>(context: Context, work: () => T): T {
  const { REQUEST_ID, X_RAY_TRACE_ID } = InvokeStoreBase.PROTECTED_KEYS;
  return store.run({ [REQUEST_ID]: context.awsRequestId, [X_RAY_TRACE_ID]: newTraceHeader() }, () =>
    functions.run(context.functionName, work),
  );
}

/** The `AWSTraceHeader` a received message carries (from the stand-in attribute). */
export function traceHeaderOfMessage(message: Message): string | undefined {
  return traceHeaderOf(message.MessageAttributes?.[LOCAL_TRACE_ATTRIBUTE]?.StringValue);
}

export interface TraceEntry {
  functionName: string;
  traceId: string | undefined;
}

/** Deposits kept at most (the oldest go first), and entries per deposit. */
const DEPOSITS = 5_000;
const PER_DEPOSIT = 200;
const journal = new Map<string, TraceEntry[]>();

export const traceJournal = {
  /** The functions that worked on the deposit, in which trace, oldest first. */
  of(depositId: string): TraceEntry[] {
    return [...(journal.get(depositId) ?? [])];
  },
};

let installed = false;

/** The SQS clients' stand-in attribute, and the journal; once per process. */
export function installLocalTraces(): void {
  if (installed) return;
  installed = true;
  onDepositTrace(({ depositId, trace }) => {
    const entries = journal.get(depositId) ?? [];
    if (entries.length === 0) {
      if (journal.size >= DEPOSITS) journal.delete(journal.keys().next().value as string);
      journal.set(depositId, entries);
    }
    entries.push({ functionName: functions.getStore() ?? 'unknown', traceId: trace && traceIdOf(trace) });
    if (entries.length > PER_DEPOSIT) entries.shift();
  });
  onClientCreated((client, service) => {
    if (service !== 'SQS') return;
    (client as SQSClient).middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as {
          MessageSystemAttributes?: { AWSTraceHeader?: { StringValue?: string } };
          MessageAttributes?: Record<string, { DataType: string; StringValue?: string }>;
        };
        const header = input.MessageSystemAttributes?.AWSTraceHeader?.StringValue;
        if (header) {
          input.MessageAttributes = {
            ...input.MessageAttributes,
            [LOCAL_TRACE_ATTRIBUTE]: { DataType: 'String', StringValue: header },
          };
        }
        return next(args);
      },
      { step: 'initialize', name: 'localTraceHeader' },
    );
  });
}
