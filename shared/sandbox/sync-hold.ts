/**
 * What a request answers once its operation is recorded, at a bank that takes time: with
 * `sync: false`, `initialized` until the operation completes; with `sync: true`, the request held
 * until it completes (the bank takes its time whichever way it is asked), then its envelope, the
 * connection freed. A completion beyond what the request can wait (`holdMs`, at most the fault
 * budget, less the request's latency) answers `initialized` when the wait ends, as `sync: false`
 * would have.
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
  if (!sync || takesMs <= 0) return answerOf(operation, sync, idField);
  await clock.sleep(Math.min(takesMs, Math.max(0, Math.min(holdMs, faultWaitBudgetMs) - latencyMs)));
  if (clock.now() < operation.completesAt) return answerOf(operation, false, idField);
  // Complete: a final operation frees the connection now (one waiting for input keeps it).
  if (operation.state === 'final') await store.releaseLock(operation.connectionId, operation.id);
  return answerOf(operation, true, idField);
}
