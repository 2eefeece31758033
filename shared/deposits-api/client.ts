/**
 * A typed client for the deposits API, for a wallet backend: create, get, list and cancel (and the
 * payment sources: create, get, list), each
 * answer validated against the API's own schemas (`#shared/contracts/deposits-schemas`, which the OpenAPI
 * document is generated from). Three outcomes:
 *
 * - an answer (2xx): `{ status, body }`, the body typed and checked;
 * - a refusal: the API answered its failed envelope (`DepositsApiError`, with `type`, `httpStatus`,
 *   `details`, `requestId`);
 * - no answer: the network failed, the call timed out, the gateway throttled it (429), or a 5xx or
 *   another status came without an envelope (`DepositsUnavailable`).
 *
 * `create` is sent again with the same `Idempotency-Key` after no answer, a throttle or any 5xx (the
 * API answers a repeat with the deposit it started, never a second one), up to `retries` times; the
 * reads and the cancel are not retried: their callers read again when they want.
 *
 * The connection's access token travels in `X-Provider-Authorization: Bearer <token>`, so that
 * `Authorization` stays free for the caller's own identity in AWS: a SigV4 signature of the
 * backend's IAM role, or its JWT. `authorize` adds those headers to every attempt.
 */
import { randomUUID } from 'node:crypto';
import type * as z from 'zod';
import {
  type CreateDepositRequest,
  type CreateSourceRequest,
  Deposit,
  DepositList,
  type GetDepositRequest,
  type ListDepositsRequest,
  Source,
  SourceList,
} from '#shared/contracts/deposits-schemas';
import { FailedEnvelope } from '#shared/provider/interface/responses';

export type { Deposit, DepositList, Source, SourceList } from '#shared/contracts/deposits-schemas';

/** Whose deposits: the user's provider connection (its access token) and the two secrets. */
export interface DepositsConnection {
  accessToken: string;
  appSecret: string;
  userSecret: string;
}

/** A request as it will be sent, for `authorize` to sign. */
export interface OutgoingRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface DepositsClientOptions {
  /** The API's base URL, for example `http://127.0.0.1:3000` or the stage's URL. */
  baseUrl: string;
  /** Per attempt (default 10 s); beyond it the attempt has no answer. */
  timeoutMs?: number;
  /** Further tries of `create` after no answer (default 3), `retryDelayMs` apart, doubling (default 200). */
  retries?: number;
  retryDelayMs?: number;
  /** Headers proving the caller is the wallet's backend (SigV4, a JWT), computed per attempt. */
  authorize?: (request: OutgoingRequest) => Promise<Record<string, string>> | Record<string, string>;
  fetch?: typeof fetch;
}

export interface DepositsAnswer<T> {
  /** 202 for a deposit started now; 200 otherwise (a repeated create answers the deposit as it stands). */
  status: number;
  body: T;
}

export type CreateDeposit = Omit<CreateDepositRequest, 'appSecret' | 'userSecret'>;
export type CreateSource = Omit<CreateSourceRequest, 'appSecret' | 'userSecret'>;
export type ListDeposits = Partial<Pick<ListDepositsRequest, 'limit' | 'cursor'>>;

/** The API refused: its failed envelope. */
export class DepositsApiError extends Error {
  readonly type: string;
  readonly details: string[] | undefined;
  readonly requestId: string | undefined;

  constructor(
    readonly httpStatus: number,
    readonly body: FailedEnvelope,
  ) {
    super(`${body.type}: ${body.msg}`);
    this.name = 'DepositsApiError';
    this.type = body.type;
    this.details = body.details;
    this.requestId = body.requestId;
  }
}

/** No answer: network failure, timeout, a 5xx without an envelope, or a body off the API's schema. */
export class DepositsUnavailable extends Error {
  constructor(
    readonly reason: 'network' | 'timeout' | 'throttled' | 'server_error' | 'unreadable',
    detail: string,
    readonly httpStatus?: number,
  ) {
    super(`deposits API gave no answer (${reason}): ${detail}`);
    this.name = 'DepositsUnavailable';
  }
}

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

  /** One payment source as it stands. */
  getSource(connection: DepositsConnection, sourceID: string) {
    return this.send('/v1/sources/get', connection, { sourceID }, Source);
  }

  /** The connection's payment sources, newest first; pass the answer's `cursor` for the next page. */
  listSources(connection: DepositsConnection, page: ListDeposits = {}) {
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

  /** One deposit as it stands. */
  get(connection: DepositsConnection, operationID: GetDepositRequest['operationID']) {
    return this.send('/v1/deposits/get', connection, { operationID }, Deposit);
  }

  /** The connection's deposits, newest first; pass the answer's `cursor` for the next page. */
  list(connection: DepositsConnection, page: ListDeposits = {}) {
    return this.send('/v1/deposits/list', connection, page, DepositList);
  }

  /** Cancels a deposit before its transfer (else 409 `DEPOSIT_NOT_CANCELLABLE`). */
  cancel(connection: DepositsConnection, operationID: string) {
    return this.send('/v1/deposits/cancel', connection, { operationID }, Deposit);
  }

  /** Cancels a payment source before it is ready (else 409 `SOURCE_NOT_CANCELLABLE`). */
  cancelSource(connection: DepositsConnection, sourceID: string) {
    return this.send('/v1/sources/cancel', connection, { sourceID }, Source);
  }

  private async send<S extends z.ZodType>(
    path: string,
    connection: DepositsConnection,
    fields: object,
    schema: S,
    extraHeaders: Record<string, string> = {},
  ): Promise<DepositsAnswer<z.infer<S>>> {
    const request: OutgoingRequest = {
      method: 'POST',
      url: `${this.baseUrl}${path}`,
      headers: {
        'content-type': 'application/json',
        'x-provider-authorization': `Bearer ${connection.accessToken}`,
        ...extraHeaders,
      },
      body: JSON.stringify({ appSecret: connection.appSecret, userSecret: connection.userSecret, ...fields }),
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

/** A create whose outcome is unknown, or that was throttled, is sent again with its key. */
function worthRepeating(error: unknown): boolean {
  if (error instanceof DepositsUnavailable) return error.reason !== 'unreadable';
  return error instanceof DepositsApiError && (error.httpStatus >= 500 || error.httpStatus === 429);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
