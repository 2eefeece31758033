/**
 * A typed client for the deposits API, for a wallet backend: create, get, answer, list and cancel,
 * `waitFor` a deposit to end (answering the bank's questions on the way), and the payment sources'
 * create, get, list and cancel; each answer validated against the API's own schemas
 * (`#shared/contracts/deposits-schemas`, which the OpenAPI document is generated from; `Deposit` is
 * a union on `status`). Three outcomes:
 *
 * - an answer (2xx): `{ status, body }`, the body typed and checked;
 * - a refusal: the API answered its failed envelope (`DepositsApiError`, with `type`, `httpStatus`,
 *   `details`, `requestId`);
 * - no answer: the network failed, the call timed out, the gateway throttled it (429), or a 5xx or
 *   another status came without an envelope (`DepositsUnavailable`).
 *
 * `create` is sent again with the same `Idempotency-Key` after no answer, a throttle or any 5xx (the
 * API answers a repeat with the deposit it started, never a second one), up to `retries` times; the
 * reads, the answer and the cancel are not retried: their callers read again when they want
 * (`waitFor` reads again after no answer, with its backoff).
 *
 * A deposit is its backend's (docs/deposits.md, "Whose deposits"): the backend reads, answers, lists
 * and cancels its deposits by id alone (`get(operationID)`), without the user's secrets; passing a
 * connection (`get(connection, operationID)`) narrows what it sees to that connection, as before.
 *
 * The connection's access token travels in `X-Provider-Authorization: Bearer <token>`, so that
 * `Authorization` stays free for the caller's own identity in AWS: a SigV4 signature of the
 * backend's IAM role, or its JWT. `authorize` adds those headers to every attempt.
 */
import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import { Deposit, DepositList, Source, SourceList } from '#shared/contracts/deposits-schemas';
import { FailedEnvelope } from '#shared/provider/interface/responses';

export type {
  Deposit,
  DepositList,
  FailureType,
  Source,
  SourceList,
} from '#shared/contracts/deposits-schemas';

import { byId, isConnection, parse, questionKey, sleep, worthRepeating } from './client-calls.ts';
import {
  type Answer,
  type CreateDeposit,
  type CreateSource,
  type DepositOf,
  type DepositsAnswer,
  DepositsApiError,
  type DepositsClientOptions,
  type DepositsConnection,
  DepositsUnavailable,
  type EndedDeposit,
  type ListDeposits,
  type ListSources,
  type OutgoingRequest,
  type WaitOptions,
} from './client-types.ts';

export * from './client-types.ts';

export class DepositsClient {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;

  constructor(private readonly options: DepositsClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /**
   * Starts a deposit, or (the same key with `userInputs`) answers the bank's question. Sent again with
   * the same key when no answer came. The key defaults to a fresh one: pass your own to repeat.
   */
  create(
    connection: DepositsConnection,
    request: CreateDeposit,
    idempotencyKey: string = randomUUID(),
  ): Promise<DepositsAnswer<Deposit>> {
    return this.createOnce('/v1/deposits/create', connection, request, Deposit, idempotencyKey);
  }

  /**
   * Prepares the connection for deposits into a wallet account (a payment source, at onboarding), or
   * (the same key with `userInputs`) answers the bank's question; sent again like `create`.
   */
  createSource(
    connection: DepositsConnection,
    request: CreateSource = {},
    idempotencyKey: string = randomUUID(),
  ): Promise<DepositsAnswer<Source>> {
    return this.createOnce('/v1/sources/create', connection, request, Source, idempotencyKey);
  }

  /** One payment source as it stands: by its id alone, or as the connection's. */
  getSource(sourceID: string): Promise<DepositsAnswer<Source>>;
  getSource(connection: DepositsConnection, sourceID: string): Promise<DepositsAnswer<Source>>;
  getSource(first: DepositsConnection | string, second?: string) {
    const [connection, sourceID] = byId(first, second);
    return this.send('/v1/sources/get', connection, { sourceID }, Source);
  }

  /** The backend's (or the connection's) payment sources, newest first; pass the answer's `cursor` for the next page. */
  listSources(page?: ListSources): Promise<DepositsAnswer<SourceList>>;
  listSources(connection: DepositsConnection, page?: ListSources): Promise<DepositsAnswer<SourceList>>;
  listSources(first?: DepositsConnection | ListSources, second: ListSources = {}) {
    const [connection, page] = isConnection(first) ? [first, second] : [undefined, first ?? {}];
    return this.send('/v1/sources/list', connection, page, SourceList);
  }

  /** A create, sent again with its key while no answer comes (the API answers a repeat with what it started). */
  private async createOnce<S extends z.ZodType>(
    path: string,
    connection: DepositsConnection,
    request: object,
    schema: S,
    idempotencyKey: string,
  ): Promise<DepositsAnswer<z.infer<S>>> {
    const retries = this.options.retries ?? 3;
    let delay = this.options.retryDelayMs ?? 200;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.send(path, connection, request, schema, { 'idempotency-key': idempotencyKey });
      } catch (error) {
        if (!worthRepeating(error) || attempt >= retries) throw error;
        await new Promise((resume) => setTimeout(resume, delay));
        delay *= 2;
      }
    }
  }

  /** One deposit as it stands: by its id alone (the backend's own), or as the connection's. */
  get(operationID: string): Promise<DepositsAnswer<Deposit>>;
  get(connection: DepositsConnection, operationID: string): Promise<DepositsAnswer<Deposit>>;
  get(first: DepositsConnection | string, second?: string) {
    const [connection, operationID] = byId(first, second);
    return this.send('/v1/deposits/get', connection, { operationID }, Deposit);
  }

  /**
   * Answers the bank's question of a deposit that waits for it (`user_input_required`): each input
   * of its `userInputs` by its `id`, with the user's `answer` (no `query`, no create body). The
   * deposit goes back to the step that asked. A deposit that waits for none is 409 `DEPOSIT_NOT_WAITING`.
   */
  answer(
    operationID: string,
    answers: readonly Answer[],
    connection?: DepositsConnection,
  ): Promise<DepositsAnswer<Deposit>> {
    const userInputs = answers.map(({ id, answer }) => ({ id, answer }));
    return this.send('/v1/deposits/answer', connection, { operationID, userInputs }, Deposit);
  }

  /**
   * Reads the deposit until it ends (`done` or `failed`), waiting longer between reads each time
   * (250 ms, growing by half up to 5 s); a read that got no answer is tried again. When the bank asks
   * a question, `onQuestion` gives the answers, which are sent, and the wait goes on; without
   * `onQuestion` the asking deposit is the answer. `signal` ends the wait (rejected with its reason).
   */
  async waitFor(
    operationID: string,
    options: WaitOptions & { onQuestion: NonNullable<WaitOptions['onQuestion']> },
  ): Promise<EndedDeposit>;
  async waitFor(
    operationID: string,
    options?: WaitOptions,
  ): Promise<EndedDeposit | DepositOf<'user_input_required'>>;
  async waitFor(operationID: string, options: WaitOptions = {}): Promise<Deposit> {
    const { signal, connection, onQuestion } = options;
    const initial = options.initialDelayMs ?? 250;
    const most = options.maxDelayMs ?? 5_000;
    const factor = options.factor ?? 1.5;
    const answered = new Set<string>();
    let delay = initial;
    for (;;) {
      signal?.throwIfAborted();
      const deposit = await this.readForWait(operationID, connection);
      if (deposit?.status === 'done' || deposit?.status === 'failed') return deposit;
      if (deposit?.status === 'user_input_required') {
        if (!onQuestion) return deposit;
        const question = questionKey(deposit);
        if (!answered.has(question)) {
          const answers = await onQuestion(deposit);
          signal?.throwIfAborted();
          await this.answerForWait(operationID, answers, connection);
          answered.add(question);
          delay = initial;
          continue;
        }
      }
      await sleep(delay, signal);
      delay = Math.min(most, delay * factor);
    }
  }

  /** A read for `waitFor`: no answer (network, timeout, a 5xx) is undefined, read again later. */
  private async readForWait(operationID: string, connection: DepositsConnection | undefined) {
    try {
      const { body } = connection ? await this.get(connection, operationID) : await this.get(operationID);
      return body;
    } catch (error) {
      if (error instanceof DepositsUnavailable && error.reason !== 'unreadable') return undefined;
      throw error;
    }
  }

  /** An answer for `waitFor`: a deposit that moved on meanwhile (409 DEPOSIT_NOT_WAITING) is read again. */
  private async answerForWait(
    operationID: string,
    answers: readonly Answer[],
    connection: DepositsConnection | undefined,
  ) {
    try {
      await this.answer(operationID, answers, connection);
    } catch (error) {
      if (error instanceof DepositsApiError && error.type === 'DEPOSIT_NOT_WAITING') return;
      if (error instanceof DepositsUnavailable && error.reason !== 'unreadable') return;
      throw error;
    }
  }

  /**
   * The backend's deposits, newest first, of every connection (`status` narrows them); or, given a
   * connection, that connection's. Pass the answer's `cursor` for the next page.
   */
  list(page?: ListDeposits): Promise<DepositsAnswer<DepositList>>;
  list(connection: DepositsConnection, page?: ListDeposits): Promise<DepositsAnswer<DepositList>>;
  list(first?: DepositsConnection | ListDeposits, second: ListDeposits = {}) {
    const [connection, page] = isConnection(first) ? [first, second] : [undefined, first ?? {}];
    return this.send('/v1/deposits/list', connection, page, DepositList);
  }

  /** Cancels a deposit before its transfer (else 409 `DEPOSIT_NOT_CANCELLABLE`): by its id alone, or as the connection's. */
  cancel(operationID: string): Promise<DepositsAnswer<Deposit>>;
  cancel(connection: DepositsConnection, operationID: string): Promise<DepositsAnswer<Deposit>>;
  cancel(first: DepositsConnection | string, second?: string) {
    const [connection, operationID] = byId(first, second);
    return this.send('/v1/deposits/cancel', connection, { operationID }, Deposit);
  }

  /** Cancels a payment source before it is ready (else 409 `SOURCE_NOT_CANCELLABLE`). */
  cancelSource(sourceID: string): Promise<DepositsAnswer<Source>>;
  cancelSource(connection: DepositsConnection, sourceID: string): Promise<DepositsAnswer<Source>>;
  cancelSource(first: DepositsConnection | string, second?: string) {
    const [connection, sourceID] = byId(first, second);
    return this.send('/v1/sources/cancel', connection, { sourceID }, Source);
  }

  private async send<S extends z.ZodType>(
    path: string,
    connection: DepositsConnection | undefined,
    fields: object,
    schema: S,
    extraHeaders: Record<string, string> = {},
  ): Promise<DepositsAnswer<z.infer<S>>> {
    const request: OutgoingRequest = {
      method: 'POST',
      url: `${this.baseUrl}${path}`,
      headers: {
        'content-type': 'application/json',
        ...(connection ? { 'x-provider-authorization': `Bearer ${connection.accessToken}` } : {}),
        ...extraHeaders,
      },
      body: JSON.stringify(
        connection
          ? { appSecret: connection.appSecret, userSecret: connection.userSecret, ...fields }
          : fields,
      ),
    };
    const headers = { ...request.headers, ...(await this.options.authorize?.(request)) };
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(request.url, {
        method: request.method,
        headers,
        body: request.body,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
        // A redirect would resend the connection's token and secrets to another origin: never followed.
        redirect: 'manual',
      });
      text = await response.text();
    } catch (error) {
      const timeout = (error as Error).name === 'TimeoutError';
      throw new DepositsUnavailable(timeout ? 'timeout' : 'network', `${path}: ${(error as Error).message}`);
    }
    const json = parse(text);
    if (response.ok) {
      // The body as it came (checked, not rewritten), so fields a newer API adds are not lost.
      if (schema.safeParse(json).success) return { status: response.status, body: json as z.infer<S> };
      throw new DepositsUnavailable('unreadable', `${path}: answered ${response.status} off its schema`);
    }
    if (response.status >= 300 && response.status < 400) {
      throw new DepositsUnavailable(
        'unreadable',
        `${path}: answered ${response.status}, a redirect (not followed)`,
        response.status,
      );
    }
    const failed = FailedEnvelope.safeParse(json);
    if (failed.success) throw new DepositsApiError(response.status, json as FailedEnvelope);
    throw new DepositsUnavailable(
      response.status >= 500 ? 'server_error' : response.status === 429 ? 'throttled' : 'unreadable',
      `${path}: answered ${response.status} without the failed envelope`,
      response.status,
    );
  }
}
