/**
 * A typed client for every endpoint of the provider interface, built on the spec's schemas: every
 * response is validated. Outcomes come in three kinds, and telling them apart is the point:
 *
 * - an answer (`done`, `user_input_required`, `initialized`), returned;
 * - a refusal: the provider answered with a failed envelope (`success: false`, `status: failed`, a
 *   `type`), whatever its HTTP status below 500: 4xx, or 200 from a provider that answers its
 *   failures so. `ProviderRefusal`. Nothing happened at the bank; the caller may fix the request
 *   or give up.
 * - an unknown outcome: timeout, connection reset, any 5xx (with an envelope or without: a server
 *   error says nothing of what took effect), or a body that is not the spec's.
 *   `ProviderUnknownOutcome`. The operation may or may not have taken effect; for a transfer the
 *   caller must not simply send it again.
 *
 * It speaks either dialect of the provider (`interface/dialects.ts`: `spec`, the default, or
 * `dapi-v2`, the real provider's), and hands on the same answers, refusals and unknown outcomes in
 * both: everything above it is the same whichever it speaks. Each call's request is built by name in
 * `requests.ts`; money crosses there (integer minor units in, major-unit numbers on the wire).
 */

import { BodyTooLarge, readCapped } from '#shared/http-body';
import { type Dialect, type DialectName, dialectOf } from '#shared/provider/interface/dialects';
import { ExchangeTokenResponse, OperationResponse } from '#shared/provider/interface/responses';
import type { InlineBeneficiary, NewBeneficiary, UserInput } from '#shared/provider/interface/schemas';
import {
  type InputAnswer,
  maxProviderBodyBytes,
  type ProviderAnswer,
  type ProviderCredentials,
  ProviderUnknownOutcome,
  retryAfterMs,
} from './outcomes.ts';
import { type RawResponse, type Read, type Refuser, readBody, specRefusal, withoutNulls } from './reading.ts';
import { readOperationInfo, v2Refusal } from './reading-v2.ts';
import {
  type BalanceAnswer,
  type BeneficiariesAnswer,
  type CreatedAnswer,
  type MetadataAnswer,
  type OperationAnswer,
  type Request,
  type Requests,
  requestsIn,
  type TransferAnswer,
  type TransferOrder,
} from './requests.ts';

// The client is the provider's entry point: what it answers is imported from here.
export {
  type InputAnswer,
  maxProviderBodyBytes,
  type ProviderAnswer,
  type ProviderCredentials,
  ProviderRefusal,
  ProviderUnknownOutcome,
  refusalMsgLength,
  retryAfterMs,
  type UnknownReason,
  unknownRefusalType,
} from './outcomes.ts';
export type { TransferOrder } from './requests.ts';

export interface ProviderClientOptions {
  baseUrl: string;
  /** Per request; a request that takes longer has an unknown outcome. */
  timeoutMs: number;
  fetch?: typeof fetch;
  /** The time a refusal's `Retry-After` date is read against (epoch ms); the system's by default. */
  now?: () => number;
  /** The provider's dialect (`PROVIDER_DIALECT`): `spec` by default, or `dapi-v2`. */
  dialect?: DialectName;
  /**
   * The `action` an inline transfer names (endpoint 5: "a string naming the automated payment flow",
   * no values shown): the provider's name for the flow this application uses; `transfer` by default.
   * The spec dialect's only: `dapi-v2` sends no `action`.
   */
  autoflowAction?: string;
}

/** The inline transfer's `action` when the configuration names none (`PROVIDER_AUTOFLOW_ACTION`). */
export const defaultAutoflowAction = 'transfer';

type Enveloped = { success: boolean; status: string; userInputs?: UserInput[] | null | undefined } & Partial<
  Record<'jobID' | 'operationID', string | null>
>;

export class ProviderClient {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly now: () => number;
  private readonly dialect: Dialect;
  private readonly requests: Requests;
  /** What a failed envelope is in the dialect: the spec's, or v2's with its cool-down period. */
  private readonly refuse: Refuser;

  constructor(private readonly options: ProviderClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch;
    this.now = options.now ?? Date.now;
    this.dialect = dialectOf(options.dialect);
    this.requests = requestsIn(this.dialect, options.autoflowAction ?? defaultAutoflowAction);
    this.refuse = this.dialect.coolDown === 'period' ? v2Refusal : specRefusal;
  }

  async exchangeToken(appSecret: string, accessCode: string, connectionID: string) {
    const path = this.dialect.paths.exchangeToken;
    const response = await this.post(path, undefined, { appSecret, accessCode, connectionID });
    return readBody(ExchangeTokenResponse, response, path, this.refuse);
  }

  getMetadata(credentials: ProviderCredentials, answer?: InputAnswer) {
    return this.operation<MetadataAnswer>(this.requests.metadata(), credentials, answer);
  }

  listBeneficiaries(credentials: ProviderCredentials, answer?: InputAnswer) {
    return this.operation<BeneficiariesAnswer>(this.requests.beneficiariesGet(), credentials, answer);
  }

  createBeneficiary(credentials: ProviderCredentials, beneficiary: NewBeneficiary, answer?: InputAnswer) {
    const request = this.requests.beneficiariesCreate(beneficiary);
    return this.operation<CreatedAnswer>(request, credentials, answer);
  }

  /**
   * Endpoint 4: to a registered beneficiary; `beneficiary` details when the bank demands them. With
   * `sync: false` the provider answers `initialized` with the operation's id at once, and the outcome
   * is read back with `getOperation`. (`dapi-v2` sends no `sync`: the provider answers as it does.)
   */
  createTransfer(
    credentials: ProviderCredentials,
    order: TransferOrder & { receiverID: string; beneficiary?: InlineBeneficiary },
    answer?: InputAnswer,
    { sync = true }: { sync?: boolean } = {},
  ) {
    const request = this.requests.transferCreate(order, sync);
    return this.operation<TransferAnswer>(request, credentials, answer);
  }

  /** Endpoint 5: the receiver inline, for banks that take no beneficiaries. */
  createAutoflowTransfer(
    credentials: ProviderCredentials,
    order: TransferOrder & { beneficiary: InlineBeneficiary; action?: string },
    answer?: InputAnswer,
  ) {
    const request = this.requests.transferAutoflow(order);
    return this.operation<TransferAnswer>(request, credentials, answer);
  }

  getCardBalance(credentials: ProviderCredentials, cardID: string, answer?: InputAnswer) {
    return this.operation<BalanceAnswer>(this.requests.balance(cardID), credentials, answer);
  }

  /**
   * Reads an operation back (after `sync: false`, or to learn what became of one). The spec shows no
   * such endpoint; the path and its `operationID` are the ones the provider's public documentation
   * names, which answers the operation under `opInfo` in `dapi-v2`.
   */
  async getOperation(
    credentials: ProviderCredentials,
    id: { operationID: string } | { jobID: string },
  ): Promise<ProviderAnswer<Read<OperationAnswer>>> {
    const target = this.requests.operationGet(id);
    if (this.dialect.operationAnswer === 'top-level') {
      return this.operation<OperationAnswer>({ ...target, schema: OperationResponse }, credentials);
    }
    const { appSecret, userSecret, accessToken } = credentials;
    const response = await this.post(target.path, accessToken, { appSecret, userSecret, ...target.body });
    return readOperationInfo(response, target.path, target.operationId);
  }

  private async operation<T extends Enveloped>(
    { path, idField, schema, body }: Request<T>,
    credentials: ProviderCredentials,
    answer?: InputAnswer,
  ): Promise<ProviderAnswer<Read<T>>> {
    const response = await this.post(path, credentials.accessToken, {
      appSecret: credentials.appSecret,
      userSecret: credentials.userSecret,
      ...body,
      ...(answer ? { [idField]: answer.id, userInputs: answer.userInputs } : {}),
    });
    const parsed = withoutNulls(readBody(schema, response, path, this.refuse));
    const id = (parsed as Read<Enveloped>)[idField];
    if (id === undefined)
      throw new ProviderUnknownOutcome('unreadable', `${path} answered without ${idField}`);
    switch (parsed.status) {
      case 'done':
        if (!parsed.success) break;
        return { status: 'done', id, response: parsed };
      case 'user_input_required':
        if (!parsed.userInputs?.length) break;
        return { status: 'user_input_required', id, userInputs: parsed.userInputs, response: parsed };
      case 'initialized':
        return { status: 'initialized', id, response: parsed };
      case 'failed': {
        const refused = this.refuse(parsed, response, id);
        if (!refused) break;
        throw refused;
      }
    }
    throw new ProviderUnknownOutcome(
      'unreadable',
      `${path} answered an inconsistent envelope`,
      response.status,
    );
  }

  private async post(path: string, accessToken: string | undefined, body: unknown): Promise<RawResponse> {
    let response: Response;
    let text: string;
    let status: number | undefined;
    try {
      response = await this.fetch(`${this.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(accessToken === undefined ? {} : { authorization: `Bearer ${accessToken}` }),
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
        // A redirect would resend the token and the secrets to another origin: never followed.
        redirect: 'manual',
      });
      status = response.status;
      // At most `maxProviderBodyBytes`: a provider gone wrong does not fill the function's memory.
      text = await readCapped(response, maxProviderBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        throw new ProviderUnknownOutcome('unreadable', `${path} answered ${error.message}`, status);
      }
      const name = (error as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new ProviderUnknownOutcome(
          'timeout',
          `${path} did not answer within ${this.options.timeoutMs} ms`,
        );
      }
      throw new ProviderUnknownOutcome('network', `${path}: ${(error as Error).message}`);
    }
    if (response.status >= 300 && response.status < 400) {
      // Nothing says whether the request took effect before the redirect: an unknown outcome.
      throw new ProviderUnknownOutcome(
        'unreadable',
        `${path} answered ${response.status}: a redirect, not followed`,
        response.status,
      );
    }
    if (response.status >= 500) {
      throw new ProviderUnknownOutcome(
        'server_error',
        `${path} answered ${response.status}`,
        response.status,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ProviderUnknownOutcome(
        'unreadable',
        `${path} answered ${response.status} without JSON`,
        response.status,
      );
    }
    const at = this.now();
    return {
      status: response.status,
      json,
      retryAfterMs: retryAfterMs(response.headers.get('retry-after'), at),
      at,
    };
  }
}
