/**
 * What a request answers once its operation is recorded, at a bank that takes time: with
 * `sync: false`, `initialized` until the operation completes; with `sync: true`, the request held
 * until it completes (the bank takes its time whichever way it is asked), then its envelope, the
 * connection freed. A completion beyond what the request can wait (`holdMs`, at most the fault
 * budget, less the request's latency) answers `initialized` when the wait ends, as `sync: false`
 * would have.
 *
 * A final operation's connection is freed here: at once by a bank that acts at once; when the
 * request is held to the operation's completion, once, at its end (the lock taken for the call
 * covers the hold); otherwise, before the answer, kept until the completion, as the bank keeps it.
 * One write of the lock after its take, where a held request wrote two.
 */
import type { Clock } from '#shared/clock';
import { faultWaitBudgetMs } from '#shared/provider/interface/limits';
import type { HttpAnswer } from './answer.ts';
import { answerOf, type IdField } from './operation-records.ts';
import type { OperationRecord, SandboxStore } from './store.ts';

export async function heldAnswer(
  { clock, store, holdMs }: { clock: Clock; store: SandboxStore; holdMs: number },
  operation: OperationRecord,
  request: { sync: boolean; idField: IdField; latencyMs: number },
): Promise<HttpAnswer> {
  const { sync, idField, latencyMs } = request;
  const takesMs = operation.completesAt - operation.createdAt;
  // One waiting for input keeps the connection as its step left it: until the wait ends.
  const final = operation.state === 'final';
  const free = (until?: number) => store.releaseLock(operation.connectionId, operation.id, until);
  if (takesMs <= 0) {
    if (final) await free();
    return answerOf(operation, sync, idField);
  }
  const waitMs = sync ? Math.min(takesMs, Math.max(0, Math.min(holdMs, faultWaitBudgetMs) - latencyMs)) : 0;
  // Answered before the bank is done: the bank holds the connection until it is.
  if (final && waitMs < takesMs) await free(operation.completesAt);
  if (!sync) return answerOf(operation, false, idField);
  await clock.sleep(waitMs);
  if (clock.now() < operation.completesAt) return answerOf(operation, false, idField);
  if (final) await free();
  return answerOf(operation, true, idField);
}
