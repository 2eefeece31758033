/**
 * The deposits client's types and errors (`client.ts` exports them with the client): the deposit
 * of one status, a connection, the options, and the two ways a call ends without an answer.
 */
import type {
  AnswerInput,
  CreateDepositRequest,
  CreateSourceRequest,
  Deposit,
  ListDepositsRequest,
} from '#shared/contracts/deposits-schemas';
import type { FailedEnvelope } from '#shared/provider/interface/responses';

/** The deposit of one status: `DepositOf<'failed'>` has `type` and `msg`, `DepositOf<'done'>` its `reference`. */
export type DepositOf<S extends Deposit['status']> = Extract<Deposit, { status: S }>;
/** A deposit that has ended: done, or failed. */
export type EndedDeposit = DepositOf<'done' | 'failed'>;
/** An answer to one input of the bank's question: its `id` and the user's `answer`. */
export type Answer = Pick<AnswerInput, 'id' | 'answer'>;

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

/** Options: each optional one may also be given as `undefined` (its default), under `exactOptionalPropertyTypes` too. */
export interface DepositsClientOptions {
  /** The API's base URL, for example `http://127.0.0.1:3000` or the stage's URL. */
  baseUrl: string;
  /** Per attempt (default 10 s); beyond it the attempt has no answer. */
  timeoutMs?: number | undefined;
  /** Further tries of `create` after no answer (default 3), `retryDelayMs` apart, doubling (default 200). */
  retries?: number | undefined;
  retryDelayMs?: number | undefined;
  /** Headers proving the caller is the wallet's backend (SigV4, a JWT), computed per attempt. */
  authorize?:
    | ((request: OutgoingRequest) => Promise<Record<string, string>> | Record<string, string>)
    | undefined;
  fetch?: typeof fetch | undefined;
}

export interface DepositsAnswer<T> {
  /** 202 for a deposit started now; 200 otherwise (a repeated create answers the deposit as it stands). */
  status: number;
  body: T;
}

export type CreateDeposit = Omit<CreateDepositRequest, 'appSecret' | 'userSecret'>;
export type CreateSource = Omit<CreateSourceRequest, 'appSecret' | 'userSecret'>;
export type ListDeposits = Partial<Pick<ListDepositsRequest, 'limit' | 'cursor' | 'status'>>;
export type ListSources = Partial<Pick<ListDepositsRequest, 'limit' | 'cursor'>>;

export interface WaitOptions {
  /**
   * Asked for the answers when the bank asks a question (a one-time password): its answers are sent
   * (`answer`) and the wait goes on. Without it, `waitFor` resolves with the asking deposit.
   */
  onQuestion?:
    | ((deposit: DepositOf<'user_input_required'>) => Promise<readonly Answer[]> | readonly Answer[])
    | undefined;
  /** Ends the wait: `waitFor` rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Whose deposit, when the call narrows to a connection (not needed by the backend that created it). */
  connection?: DepositsConnection | undefined;
  /** The first wait between reads (default 250 ms), growing by `factor` (1.5) up to `maxDelayMs` (5 s). */
  initialDelayMs?: number | undefined;
  maxDelayMs?: number | undefined;
  factor?: number | undefined;
}

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
