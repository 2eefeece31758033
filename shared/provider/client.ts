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
 * Money crosses here: callers give integer minor units, the wire carries major-unit numbers.
 */
import type { z } from 'zod';
import { type CurrencyCode, fromMinorUnits } from '#shared/money';
import {
  BalanceResponse,
  CreateBeneficiaryResponse,
  ExchangeTokenResponse,
  FailedEnvelope,
  ListBeneficiariesResponse,
  MetadataResponse,
  OperationResponse,
  TransferResponse,
} from '#shared/provider/interface/responses';
import type {
  AutoflowTransferRequest,
  InlineBeneficiary,
  NewBeneficiary,
  UserInput,
} from '#shared/provider/interface/schemas';
import {
  type InputAnswer,
  type ProviderAnswer,
  type ProviderCredentials,
  ProviderUnknownOutcome,
  retryAfterMs,
} from './outcomes.ts';
import { type RawResponse, type Read, readBody, refusal, withoutNulls } from './reading.ts';

// The client is the provider's entry point: what it answers is imported from here.
export {
  type InputAnswer,
  type ProviderAnswer,
  type ProviderCredentials,
  ProviderRefusal,
  ProviderUnknownOutcome,
  retryAfterMs,
  type UnknownReason,
} from './outcomes.ts';

export interface ProviderClientOptions {
  baseUrl: string;
  /** Per request; a request that takes longer has an unknown outcome. */
  timeoutMs: number;
  fetch?: typeof fetch;
  /** The time a refusal's `Retry-After` date is read against (epoch ms); the system's by default. */
  now?: () => number;
  /**
   * The `action` an inline transfer names (endpoint 5: "a string naming the automated payment flow",
   * no values shown): the provider's name for the flow this application uses; `transfer` by default.
   */
  autoflowAction?: string;
}

/** The inline transfer's `action` when the configuration names none (`PROVIDER_AUTOFLOW_ACTION`). */
export const defaultAutoflowAction = 'transfer';

type IdField = 'jobID' | 'operationID';
type Enveloped = { success: boolean; status: string; userInputs?: UserInput[] | null | undefined } & Partial<
  Record<IdField, string | null>
>;

export interface TransferOrder {
  amountMinor: number;
  currency: CurrencyCode;
  senderID: string;
}

export class ProviderClient {
  private readonly baseUrl: string;
  private readonly fetch: typeof fetch;
  private readonly now: () => number;

  constructor(private readonly options: ProviderClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch;
    this.now = options.now ?? Date.now;
  }

  async exchangeToken(appSecret: string, accessCode: string, connectionID: string) {
    const response = await this.post('/v1/auth/ExchangeToken', undefined, {
      appSecret,
      accessCode,
      connectionID,
    });
    return readBody(ExchangeTokenResponse, response, '/v1/auth/ExchangeToken');
  }

  getMetadata(credentials: ProviderCredentials, answer?: InputAnswer) {
    return this.operation(
      '/v1/metadata/accounts/get',
      'jobID',
      MetadataResponse,
      credentials,
      { sync: true },
      answer,
    );
  }

  listBeneficiaries(credentials: ProviderCredentials, answer?: InputAnswer) {
    return this.operation(
      '/v1/payment/beneficiaries/get',
      'jobID',
      ListBeneficiariesResponse,
      credentials,
      { sync: true },
      answer,
    );
  }

  createBeneficiary(credentials: ProviderCredentials, beneficiary: NewBeneficiary, answer?: InputAnswer) {
    return this.operation(
      '/v1/payment/beneficiaries/create',
      'jobID',
      CreateBeneficiaryResponse,
      credentials,
      { sync: true, ...beneficiary },
      answer,
    );
  }

  /**
   * Endpoint 4: to a registered beneficiary; `beneficiary` details when the bank demands them. With
   * `sync: false` the provider answers `initialized` with the operation's id at once, and the outcome
   * is read back with `getOperation`.
   */
  createTransfer(
    credentials: ProviderCredentials,
    order: TransferOrder & { receiverID: string; beneficiary?: InlineBeneficiary },
    answer?: InputAnswer,
    { sync = true }: { sync?: boolean } = {},
  ) {
    const { amountMinor, currency, ...rest } = order;
    return this.operation(
      '/v1/payment/transfer/create',
      'operationID',
      TransferResponse,
      credentials,
      { sync, amount: fromMinorUnits(amountMinor, currency), ...rest },
      answer,
    );
  }

  /** Endpoint 5: the receiver inline, for banks that take no beneficiaries. */
  createAutoflowTransfer(
    credentials: ProviderCredentials,
    order: TransferOrder & { beneficiary: InlineBeneficiary; action?: string },
    answer?: InputAnswer,
  ) {
    const {
      amountMinor,
      currency,
      action = this.options.autoflowAction ?? defaultAutoflowAction,
      ...rest
    } = order;
    const body: Omit<AutoflowTransferRequest, 'appSecret' | 'userSecret' | 'sync'> = {
      amount: fromMinorUnits(amountMinor, currency),
      action,
      ...rest,
    };
    return this.operation(
      '/v1/payment/transfer/autoflow',
      'operationID',
      TransferResponse,
      credentials,
      body,
      answer,
    );
  }

  getCardBalance(credentials: ProviderCredentials, cardID: string, answer?: InputAnswer) {
    return this.operation(
      '/v2/data/balance/get',
      'operationID',
      BalanceResponse,
      credentials,
      { cardID },
      answer,
    );
  }

  /**
   * Reads an operation back (after `sync: false`, or to learn what became of one). The spec shows no
   * such endpoint; the path and its `operationID` are the ones the provider's public documentation names.
   */
  getOperation(credentials: ProviderCredentials, id: { operationID: string } | { jobID: string }) {
    const idField: IdField = 'operationID' in id ? 'operationID' : 'jobID';
    return this.operation('/v2/operation/get', idField, OperationResponse, credentials, id);
  }

  private async operation<S extends z.ZodType<Enveloped>>(
    path: string,
    idField: IdField,
    schema: S,
    credentials: ProviderCredentials,
    body: Record<string, unknown>,
    answer?: InputAnswer,
  ): Promise<ProviderAnswer<Read<z.infer<S>>>> {
    const response = await this.post(path, credentials.accessToken, {
      appSecret: credentials.appSecret,
      userSecret: credentials.userSecret,
      ...body,
      ...(answer ? { [idField]: answer.id, userInputs: answer.userInputs } : {}),
    });
    const parsed = withoutNulls(readBody(schema, response, path));
    const id = parsed[idField];
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
        const failed = FailedEnvelope.safeParse(parsed);
        if (!failed.success) break;
        throw refusal(failed.data, response, id);
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
      text = await response.text();
    } catch (error) {
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
    const retryAfter = retryAfterMs(response.headers.get('retry-after'), this.now());
    return { status: response.status, json, retryAfterMs: retryAfter };
  }
}
