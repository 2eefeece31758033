/**
 * The operation engine: the one path every provider operation takes (`run`).
 *   1. take the user's connection (one operation at a time; a holder whose lock expired is taken
 *      over), or re-take it to answer an operation waiting for user input;
 *   2. spend the request's latency, if its fault adds some, while holding the connection;
 *   3. `prepare`: check the request against the bank's rules; a refusal becomes a failed operation;
 *   4. ask for a one-time password when the bank wants one, and stop there, the connection held, until
 *      it is answered or the wait expires;
 *   5. `commit`: write the outcome and the operation record in one transaction;
 *   6. answer: the envelope (`sync: true`), or `initialized` (`sync: false`) while the connection stays
 *      held until the operation completes, `asyncDelayMs` later.
 */

import type { Clock } from '#shared/clock';
import { badRequest, ProviderError } from '#shared/spec/errors';
import type { UserInput } from '#shared/spec/schemas';
import type { HttpAnswer } from './answer.ts';
import { newId } from './ids.ts';
import {
  acceptedAnswer,
  failedEnvelope,
  fingerprint,
  givenOtp,
  type IdField,
  isExpiredWait,
  otpQuestion,
  SANDBOX_OTP,
} from './operation-records.ts';
import {
  type ConnectionRecord,
  type Envelope,
  type OperationKind,
  type OperationPrecondition,
  type OperationRecord,
  type SandboxStore,
  StoreConflict,
} from './store.ts';

export interface EngineSettings {
  /** How long an operation sent with `sync: false` stays `initialized`. */
  asyncDelayMs: number;
  /** How long an operation waits for user input before it expires (a user may have their own). */
  inputTtlMs: number;
  /** Longest an operation may hold its connection if its process dies mid-way. */
  lockMs: number;
}

/** One provider operation, as the engine runs it. */
export interface OperationSpec<Plan> {
  kind: OperationKind;
  idField: IdField;
  request: { sync: boolean; userInputs?: UserInput[] | undefined } & Partial<Record<IdField, string>>;
  asksForInput: boolean;
  /** Checks the request against the bank's rules at `now`; a ProviderError is the bank's refusal. */
  prepare(now: number): Promise<Plan>;
  /** Fields the `done` envelope carries besides id, success and status. */
  result(plan: Plan): Record<string, unknown>;
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

export class OperationEngine {
  constructor(
    private readonly store: SandboxStore,
    private readonly settings: EngineSettings,
    private readonly clock: Clock,
  ) {}

  /** The context of one request on `connection`; `latencyMs` is spent inside each operation it runs. */
  context(connection: ConnectionRecord, latencyMs = 0): OperationContext {
    return {
      connection,
      store: this.store,
      now: () => this.clock.now(),
      run: (spec) => this.run(connection, spec, latencyMs),
    };
  }

  /** A new operation, or the answer to one waiting for user input (its id and `userInputs` together). */
  async run<Plan>(
    connection: ConnectionRecord,
    spec: OperationSpec<Plan>,
    latencyMs = 0,
  ): Promise<HttpAnswer> {
    const { userInputs } = spec.request;
    const answeredId = spec.request[spec.idField];
    if (userInputs === undefined && answeredId === undefined) {
      const operationId = newId(spec.idField === 'jobID' ? 'job' : 'op');
      await this.takeConnection(connection, operationId);
      return this.execute(connection, spec, operationId, 'new', latencyMs);
    }
    if (userInputs === undefined || answeredId === undefined) {
      throw badRequest([`${spec.idField} and userInputs are sent together to answer an operation`]);
    }

    const now = this.clock.now();
    const operation = await this.store.getOperation(answeredId);
    const waiting =
      operation?.connectionId === connection.id &&
      operation.kind === spec.kind &&
      operation.state === 'awaiting_input' &&
      now >= operation.completesAt;
    if (!operation || !waiting) throw new ProviderError('INVALID_OPERATION_ID');
    if (operation.fingerprint !== fingerprint(spec.request)) throw new ProviderError('OPERATION_MISMATCH');
    await this.takeConnection(connection, operation.id);
    if (isExpiredWait(operation, now)) {
      return this.fail(
        connection,
        spec,
        operation.id,
        'awaiting_input',
        new ProviderError('USER_INPUT_EXPIRED'),
      );
    }
    if (givenOtp(userInputs) !== SANDBOX_OTP) {
      return this.fail(connection, spec, operation.id, 'awaiting_input', new ProviderError('INVALID_MFA'));
    }
    return this.execute(connection, spec, operation.id, 'awaiting_input', latencyMs, true);
  }

  private async execute<Plan>(
    connection: ConnectionRecord,
    spec: OperationSpec<Plan>,
    operationId: string,
    precondition: OperationPrecondition,
    latencyMs: number,
    inputGiven = false,
  ): Promise<HttpAnswer> {
    try {
      if (latencyMs > 0) await this.clock.sleep(latencyMs);
      const now = this.clock.now();
      let plan: Plan;
      try {
        plan = await spec.prepare(now);
      } catch (error) {
        if (error instanceof ProviderError)
          return await this.fail(connection, spec, operationId, precondition, error);
        throw error;
      }
      const base = this.operationRecord(connection, spec, operationId, now);

      if (spec.asksForInput && !inputGiven) {
        const inputExpiresAt = base.completesAt + (connection.inputTtlMs ?? this.settings.inputTtlMs);
        const response = {
          [spec.idField]: operationId,
          success: true,
          status: 'user_input_required',
          userInputs: [otpQuestion],
        };
        const operation: OperationRecord = { ...base, state: 'awaiting_input', response, inputExpiresAt };
        await this.store.saveOperation(operation, precondition);
        // The connection stays taken while the bank waits for the answer.
        await this.store.releaseLock(connection.id, operationId, inputExpiresAt);
        return answer(operation, spec);
      }

      const response = { [spec.idField]: operationId, success: true, status: 'done', ...spec.result(plan) };
      const operation: OperationRecord = { ...base, response };
      try {
        await (spec.commit
          ? spec.commit(plan, operation, precondition)
          : this.store.saveOperation(operation, precondition));
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal) return await this.fail(connection, spec, operationId, precondition, refusal);
        throw error;
      }
      await this.releaseConnection(connection, operation);
      return answer(operation, spec);
    } catch (error) {
      await this.store.releaseLock(connection.id, operationId);
      if (error instanceof StoreConflict && error.reason === 'operation') {
        // A concurrent request answered the same operation first.
        throw new ProviderError('INVALID_OPERATION_ID');
      }
      if (error instanceof StoreConflict && error.reason === 'contention') {
        // Another request wrote the same items at the same moment; nothing was written: try again.
        throw new ProviderError('OPERATION_IN_PROGRESS');
      }
      throw error;
    }
  }

  /** Ends the operation as failed with the bank's refusal, and frees the connection. */
  private async fail<Plan>(
    connection: ConnectionRecord,
    spec: OperationSpec<Plan>,
    operationId: string,
    precondition: OperationPrecondition,
    error: ProviderError,
  ): Promise<HttpAnswer> {
    const operation: OperationRecord = {
      ...this.operationRecord(connection, spec, operationId, this.clock.now()),
      response: failedEnvelope(spec.idField, operationId, error),
      httpStatus: error.status,
    };
    try {
      await this.store.saveOperation(operation, precondition);
    } catch (conflict) {
      await this.store.releaseLock(connection.id, operationId);
      if (conflict instanceof StoreConflict) throw new ProviderError('INVALID_OPERATION_ID');
      throw conflict;
    }
    await this.releaseConnection(connection, operation);
    return answer(operation, spec);
  }

  private operationRecord<Plan>(
    connection: ConnectionRecord,
    spec: OperationSpec<Plan>,
    id: string,
    now: number,
  ): OperationRecord {
    return {
      id,
      connectionId: connection.id,
      kind: spec.kind,
      fingerprint: fingerprint(spec.request),
      state: 'final',
      response: { success: true, status: 'done' },
      httpStatus: 200,
      completesAt: spec.request.sync ? now : now + this.settings.asyncDelayMs,
      createdAt: now,
    };
  }

  private async takeConnection(connection: ConnectionRecord, operationId: string) {
    const now = this.clock.now();
    if (!(await this.store.acquireLock(connection.id, operationId, now + this.settings.lockMs, now))) {
      throw new ProviderError('OPERATION_IN_PROGRESS');
    }
  }

  /** A synchronous operation frees its connection; an asynchronous one holds it until it completes. */
  private releaseConnection(connection: ConnectionRecord, operation: OperationRecord) {
    const until = operation.completesAt > operation.createdAt ? operation.completesAt : undefined;
    return this.store.releaseLock(connection.id, operation.id, until);
  }
}

/** The bank's refusal a failed commit stands for, if it stands for one. */
function refusalOf(error: unknown): ProviderError | undefined {
  if (!(error instanceof StoreConflict)) return undefined;
  if (error.reason === 'insufficient_balance') return new ProviderError('INSUFFICIENT_BALANCE');
  if (error.reason === 'duplicate_beneficiary') return new ProviderError('BENEFICIARY_ALREADY_EXISTS');
  return undefined;
}

function answer<Plan>(operation: OperationRecord, spec: OperationSpec<Plan>): HttpAnswer {
  if (spec.request.sync) return { status: operation.httpStatus, body: operation.response as Envelope };
  return acceptedAnswer(spec.idField, operation.id);
}
