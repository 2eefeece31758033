/**
 * What a provider operation gives the engine (`engine.ts`): its kind and request, the bank's rules
 * (`prepare`), its answer (`result`) and its write (`commit`); and what it is given for one request
 * on one connection (`OperationContext`). Each operation (`operations/`) is written against these.
 */
import type { UserInput } from '#shared/provider/interface/schemas';
import type { HttpAnswer } from './answer.ts';
import type { IdField } from './operation-records.ts';
import type {
  ConnectionRecord,
  OperationKind,
  OperationPrecondition,
  OperationRecord,
  SandboxStore,
} from './store.ts';

/** One provider operation, as the engine runs it. */
export interface OperationSpec<Plan> {
  kind: OperationKind;
  idField: IdField;
  request: { sync: boolean; userInputs?: UserInput[] | undefined } & Partial<Record<IdField, string>>;
  /**
   * Checks the request against the bank's rules at `now`, for the operation `operationId`; a
   * ProviderError is the bank's refusal.
   */
  prepare(now: number, operationId: string): Promise<Plan>;
  /** Fields the `done` envelope carries besides id, success and status. */
  result(plan: Plan): Record<string, unknown>;
  /**
   * The fields of `result` the operation's record keeps, when not all of them: a record keeps
   * references, never copies of a list (reading the operation back rebuilds it).
   */
  stored?(plan: Plan): Record<string, unknown>;
  /** Writes the outcome together with the operation record. Defaults to writing the record alone. */
  commit?(plan: Plan, operation: OperationRecord, precondition: OperationPrecondition): Promise<void>;
}

/** What an operation needs for one request on one connection. */
export interface OperationContext {
  connection: ConnectionRecord;
  store: SandboxStore;
  now(): number;
  /** Runs an operation on the connection, spending the request's latency while holding it. */
  run<Plan>(spec: OperationSpec<Plan>): Promise<HttpAnswer>;
}
