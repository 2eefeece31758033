/**
 * The operation engine: the one path every provider operation takes (`run`).
 *   1. take the user's connection (one operation at a time; a holder whose lock expired is taken
 *      over), or re-take it to answer the operation waiting for user input on it (rule 1: a request
 *      with `userInputs` answers that operation, its id sent or not);
 *   2. spend the request's latency, if its fault adds some, while holding the connection;
 *   3. `prepare`: check the request against the bank's rules; a refusal becomes a failed operation;
 *   4. ask the bank's questions when it has some for this operation, and stop there, the connection
 *      held, until they are answered or the wait expires; a wrong answer asks again, up to
 *      `MAX_INPUT_TRIES` answers, the last wrong one failing the operation with INVALID_MFA;
 *   5. `commit`: write the outcome and the operation record in one transaction;
 *   6. answer: `initialized` (`sync: false`) while the connection stays held until the operation
 *      completes, `asyncDelayMs` later; or (`sync: true`) the request is held that long, then answers
 *      the envelope, so that neither mode is quicker: a bank takes the same time either way. A hold
 *      longer than the request can wait (`holdMs`, at most `faultWaitBudgetMs`, less its latency) answers
 *      `initialized` once it ends, as `sync: false` would have. A bank that carries operations out at
 *      once (a delay of 0) has nothing in progress to report, so it answers the envelope at once.
 */

import type { Clock } from '#shared/clock';
import { badRequest, ProviderError } from '#shared/provider/interface/errors';
import { faultWaitBudgetMs } from '#shared/provider/interface/limits';
import type { HttpAnswer } from './answer.ts';
import { questionsAsked } from './catalog.ts';
import { newId } from './ids.ts';
import { answerOf, failedEnvelope, fingerprint, isExpiredWait } from './operation-records.ts';
import type { OperationContext, OperationSpec } from './operation-spec.ts';
import { afterWrongAnswer, answeredRightly, askedOf, questionsOf, waitingOperation } from './questions.ts';
import { bankOf } from './rules.ts';
import {
  type ConnectionRecord,
  type OperationKind,
  type OperationPrecondition,
  type OperationRecord,
  type SandboxStore,
  StoreConflict,
} from './store.ts';
import { heldAnswer } from './sync-hold.ts';

export interface EngineSettings {
  /** How long an operation sent with `sync: false` stays `initialized`. */
  asyncDelayMs: number;
  /** How long an operation waits for user input before it expires (a user may have their own). */
  inputTtlMs: number;
  /** Longest an operation may hold its connection if its process dies mid-way. */
  lockMs: number;
  /**
   * Longest a request is held while its bank takes its time (`SANDBOX_HOLD_MS`; the fault budget,
   * 25 s, when not set): past it the request answers `initialized`, as the provider does.
   */
  holdMs?: number;
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

  /**
   * A new operation, or (with `userInputs`) the answer to the one waiting for input on the connection:
   * the one its id names, or, without an id, the one holding the connection (rule 1 of the spec).
   */
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
    if (userInputs === undefined) {
      throw badRequest([`userInputs: required with ${spec.idField}, to answer the operation it names`]);
    }

    const now = this.clock.now();
    const operation = await waitingOperation(
      this.store,
      connection,
      spec.kind,
      spec.request,
      answeredId,
      now,
    );
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
    if (!answeredRightly(askedOf(operation), userInputs))
      return this.wrongAnswer(connection, spec, operation);
    return this.execute(connection, spec, operation.id, 'awaiting_input', latencyMs, true);
  }

  /** Asks the same questions again, counting the wrong answer; the last try fails with INVALID_MFA. */
  private async wrongAnswer<Plan>(
    connection: ConnectionRecord,
    spec: OperationSpec<Plan>,
    operation: OperationRecord,
  ): Promise<HttpAnswer> {
    const again = afterWrongAnswer(operation);
    if (!again) {
      return this.fail(connection, spec, operation.id, 'awaiting_input', new ProviderError('INVALID_MFA'));
    }
    try {
      await this.store.recordWrongAnswer(again, operation.wrongAnswers ?? 0);
    } catch (error) {
      // Another answer to the same operation came first.
      if (error instanceof StoreConflict) throw new ProviderError('INVALID_OPERATION_ID');
      throw error;
    }
    // The connection stays held for the answer, as long as the wait lasts.
    await this.store.releaseLock(connection.id, operation.id, operation.inputExpiresAt);
    return answerOf(again, spec.request.sync, spec.idField);
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
        plan = await spec.prepare(now, operationId);
      } catch (error) {
        if (error instanceof ProviderError)
          return await this.fail(connection, spec, operationId, precondition, error, latencyMs);
        throw error;
      }
      const base = this.operationRecord(connection, spec, operationId, now);
      const questions = questionsAsked(bankOf(connection), spec.kind);

      if (questions.length > 0 && !inputGiven) {
        const inputExpiresAt = base.completesAt + (connection.inputTtlMs ?? this.settings.inputTtlMs);
        const response = {
          [spec.idField]: operationId,
          success: true,
          status: 'user_input_required',
          userInputs: questionsOf(questions),
        };
        const operation: OperationRecord = {
          ...base,
          state: 'awaiting_input',
          response,
          inputExpiresAt,
          wrongAnswers: 0,
        };
        await this.store.saveOperation(operation, precondition);
        // The connection stays taken while the bank waits for the answer, and no longer.
        await this.store.releaseLock(connection.id, operationId, inputExpiresAt);
        return await this.answer(operation, spec, latencyMs);
      }

      const envelope = { [spec.idField]: operationId, success: true, status: 'done' };
      const result = spec.result(plan);
      const operation: OperationRecord = {
        ...base,
        response: { ...envelope, ...(spec.stored ? spec.stored(plan) : result) },
      };
      try {
        await (spec.commit
          ? spec.commit(plan, operation, precondition)
          : this.store.saveOperation(operation, precondition));
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal) return await this.fail(connection, spec, operationId, precondition, refusal, latencyMs);
        throw error;
      }
      // The answer frees the connection, once the bank is done.
      return await this.answer({ ...operation, response: { ...envelope, ...result } }, spec, latencyMs);
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
    latencyMs = 0,
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
    return this.answer(operation, spec, latencyMs);
  }

  /**
   * The request's answer, held while the bank takes its time when sent with `sync: true`; it frees a
   * final operation's connection (`sync-hold.ts`).
   */
  private answer<Plan>(operation: OperationRecord, spec: OperationSpec<Plan>, latencyMs: number) {
    const request = { sync: spec.request.sync, idField: spec.idField, latencyMs };
    const holdMs = this.settings.holdMs ?? faultWaitBudgetMs;
    return heldAnswer({ clock: this.clock, store: this.store, holdMs }, operation, request);
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
      // The bank takes this long whether it is asked to answer at once (`sync: true`) or not.
      completesAt: now + this.takesMs(connection, spec.kind),
      createdAt: now,
    };
  }

  /** How long the bank takes over an operation of this kind for this user. */
  private takesMs(connection: ConnectionRecord, kind: OperationKind): number {
    const all = connection.asyncDelayMs ?? this.settings.asyncDelayMs;
    const transfer = kind === 'transfer.create' || kind === 'transfer.autoflow';
    return transfer ? (connection.transferDelayMs ?? all) : all;
  }

  private async takeConnection(connection: ConnectionRecord, operationId: string) {
    const now = this.clock.now();
    if (!(await this.store.acquireLock(connection.id, operationId, now + this.settings.lockMs, now))) {
      throw new ProviderError('OPERATION_IN_PROGRESS');
    }
  }
}

/** The bank's refusal a failed commit stands for, if it stands for one. */
function refusalOf(error: unknown): ProviderError | undefined {
  if (!(error instanceof StoreConflict)) return undefined;
  if (error.reason === 'insufficient_balance') return new ProviderError('INSUFFICIENT_BALANCE');
  if (error.reason === 'duplicate_beneficiary') return new ProviderError('BENEFICIARY_ALREADY_EXISTS');
  return undefined;
}
