/**
 * The provider sandbox assembled: administration, the operation engine and fault handling over one
 * store and one clock. Pure domain: storage comes in through `SandboxStore` and time through a
 * `Clock`, so the same rules run on one process, on many Lambdas, or in a unit test.
 */

import { type Clock, systemClock } from '#shared/clock';
import { EnvelopeError } from '#shared/provider/interface/errors';
import { Administration, type AdministrationSettings } from './administration.ts';
import type { HttpAnswer } from './answer.ts';
import { styledAnswer } from './answer-style.ts';
import { type EngineSettings, OperationEngine } from './engine.ts';
import { type FaultedRequest, type FaultSettings, runOperationWithFault } from './faults.ts';
import type { OperationContext } from './operation-spec.ts';
import { bankOf } from './rules.ts';
import type { ConnectionRecord, SandboxStore } from './store.ts';

export interface SandboxOptions extends AdministrationSettings, EngineSettings {
  /** How long a `timeout` fault hangs when it names no time of its own. */
  timeoutFaultMs: number;
  /** Told of each fault as it is injected (the handlers log it). */
  onFault?: FaultSettings['onFault'];
}

/** A provider request: its path and headers (the bearer token among them) and the two secrets of its body. */
export interface ProviderRequest extends FaultedRequest {
  appSecret: string;
  userSecret: string;
}

export class Sandbox {
  readonly administration: Administration;
  private readonly engine: OperationEngine;
  private readonly faults: FaultSettings;

  constructor(
    private readonly store: SandboxStore,
    options: SandboxOptions,
    private readonly clock: Clock = systemClock,
  ) {
    this.administration = new Administration(store, options, clock);
    this.engine = new OperationEngine(store, options, clock);
    this.faults = {
      clock,
      defaultTimeoutMs: () => options.timeoutFaultMs,
      ...(options.onFault ? { onFault: options.onFault } : {}),
    };
  }

  /**
   * One provider request: authenticated against its connection, then `operation` under the fault
   * chosen for it, the fault's latency spent while the operation holds the connection; answered as
   * the connection's bank writes its answers.
   */
  async operate(
    request: ProviderRequest,
    operation: (context: OperationContext) => Promise<HttpAnswer>,
  ): Promise<HttpAnswer> {
    const connection = await this.administration.authenticate(
      request.headers.authorization,
      request.appSecret,
      request.userSecret,
    );
    // A bank that limits calls counts this one first: over its limit, nothing happens (429).
    await this.countCall(connection);
    const answer = await runOperationWithFault(this.store, this.faults, connection, request, (latencyMs) =>
      operation(this.engine.context(connection, latencyMs)),
    );
    return styledAnswer(bankOf(connection), answer);
  }

  /**
   * Counts a call of the connection against its bank's limit, if it has one: a full window is
   * `429 TOO_MANY_REQUESTS`, with `Retry-After` the seconds until its oldest call leaves it.
   */
  private async countCall(connection: ConnectionRecord): Promise<void> {
    const limit = bankOf(connection).callLimit;
    if (!limit) return;
    const waitMs = await this.store.countCall(connection.id, this.clock.now(), limit);
    if (waitMs === undefined) return;
    const retryAfter = String(Math.max(1, Math.ceil(waitMs / 1000)));
    throw new EnvelopeError('TOO_MANY_REQUESTS', 429, 'Too many requests', undefined, {
      'retry-after': retryAfter,
    });
  }
}
