/**
 * Administration and authentication: applications, test users (created on a chosen bank with their
 * credentials, account and card; read back with balances and transfers), per-user fault rules, the
 * exchange of an access code for a token, and the checks of a bearer token and secrets against a
 * connection (each compared in constant time).
 */

import type { Clock } from '#shared/clock';
import { type CurrencyCode, fromMinorUnits, toMinorUnits } from '#shared/money';
import { ProviderError } from '#shared/provider/interface/errors';
import { bearerTokenOf, inputLimits, isOverLongAuthorization } from '#shared/provider/interface/limits';
import type { ExchangeTokenResponse } from '#shared/provider/interface/responses';
import type { ExchangeTokenRequest } from '#shared/provider/interface/schemas';
import type {
  CreateSandboxUserRequest,
  CreateSandboxUserResponse,
  SandboxUserRequest,
  SandboxUserResponse,
  SetFaultsRequest,
} from '#shared/sandbox/admin-schemas';
import { digest, matchesDigest, randomSecret } from '#shared/secrets';
import type { HttpAnswer } from './answer.ts';
import { findBank } from './catalog.ts';
import { newId } from './ids.ts';
import { minorUnits } from './rules.ts';
import { type CardRecord, type ConnectionRecord, SANDBOX_LIFETIME_MS, type SandboxStore } from './store.ts';

export interface AdministrationSettings {
  /** Digest of the sandbox application's secret (`SANDBOX_APP_SECRET`). */
  defaultAppSecretDigest: string;
  /** How long a new user's access code stays valid, unless the request says otherwise. */
  accessCodeTtlMs: number;
}

export class Administration {
  constructor(
    private readonly store: SandboxStore,
    private readonly settings: AdministrationSettings,
    private readonly clock: Clock,
  ) {}

  /** A new application, refused (and removed) `SANDBOX_LIFETIME_MS` after it was created, as users are. */
  async createApplication(): Promise<HttpAnswer> {
    const appSecret = randomSecret('app_');
    const createdAt = this.clock.now();
    const expiresAt = createdAt + SANDBOX_LIFETIME_MS;
    await this.store.putApplication(digest(appSecret), { createdAt, expiresAt });
    return { status: 201, body: { appSecret, expiresAt: new Date(expiresAt).toISOString() } };
  }

  async createUser(request: CreateSandboxUserRequest): Promise<HttpAnswer> {
    await this.authenticateApplication(request.appSecret);
    const bank = findBank(request.bankId);
    if (!bank) throw new ProviderError('INVALID_BANK_ID', `No sandbox bank with bankId ${request.bankId}`);
    const balanceMinor =
      request.balance === undefined
        ? bank.openingBalanceMinor
        : minorUnits(request.balance, bank.currency, 'balance');

    const now = this.clock.now();
    const connectionId = newId('conn');
    const accessCode = randomSecret('ac_');
    const userSecret = randomSecret('us_');
    const account = { connectionId, id: newId('acc'), currency: bank.currency, balanceMinor };
    const card = newCard(connectionId, bank.currency, now);
    await this.store.createUser(
      {
        id: connectionId,
        bankId: bank.bankId,
        appSecretDigest: digest(request.appSecret),
        userSecretDigest: digest(userSecret),
        accessCodeDigest: digest(accessCode),
        accessCodeExpiresAt:
          now + (request.accessCodeTtlSeconds ?? this.settings.accessCodeTtlMs / 1000) * 1000,
        ...(request.inputTtlSeconds === undefined ? {} : { inputTtlMs: request.inputTtlSeconds * 1000 }),
        ...(request.asyncDelaySeconds === undefined
          ? {}
          : { asyncDelayMs: request.asyncDelaySeconds * 1000 }),
        ...(request.transferDelaySeconds === undefined
          ? {}
          : { transferDelayMs: request.transferDelaySeconds * 1000 }),
        faults: [],
        createdAt: now,
      },
      [account],
      [card],
    );
    const body: CreateSandboxUserResponse = {
      accessCode,
      connectionID: connectionId,
      userSecret,
      accounts: [
        { id: account.id, currency: account.currency, balance: fromMinorUnits(balanceMinor, bank.currency) },
      ],
      cards: [{ id: card.id }],
    };
    return { status: 201, body };
  }

  /**
   * A user's accounts (with current balances), cards, transfers, fault rules and beneficiary creation
   * calls, for tests to assert on.
   */
  async getUser(request: SandboxUserRequest): Promise<HttpAnswer> {
    const connection = await this.applicationConnection(request.connectionID, request.appSecret);
    const { accounts, cards, transfers, creationCalls } = await this.store.getUserAssets(connection.id);
    const body: SandboxUserResponse = {
      connectionID: connection.id,
      bankId: connection.bankId,
      accounts: accounts.map((account) => ({
        id: account.id,
        currency: account.currency,
        balance: fromMinorUnits(account.balanceMinor, account.currency),
      })),
      cards: cards.map((card) => ({ id: card.id })),
      faults: connection.faults,
      transfers: transfers.map((transfer) => ({
        reference: transfer.reference,
        operationID: transfer.operationId,
        senderID: transfer.senderId,
        amount: fromMinorUnits(transfer.amountMinor, transfer.currency),
        currency: transfer.currency,
        type: transfer.transferType,
        ...(transfer.action === undefined ? {} : { action: transfer.action }),
        receiver: {
          ...(transfer.receiver.beneficiaryId === undefined
            ? {}
            : { beneficiaryID: transfer.receiver.beneficiaryId }),
          name: transfer.receiver.name,
          iban: transfer.receiver.iban,
          swiftCode: transfer.receiver.swiftCode,
        },
        createdAt: new Date(transfer.createdAt).toISOString(),
      })),
      beneficiaryCreations: creationCalls.map((call) => ({
        jobID: call.operationId,
        at: new Date(call.at).toISOString(),
        iban: call.iban,
        accountNumber: call.accountNumber,
        outcome: call.outcome,
        ...(call.type === undefined ? {} : { type: call.type }),
        ...(call.beneficiaryId === undefined ? {} : { beneficiaryID: call.beneficiaryId }),
      })),
    };
    return { status: 200, body };
  }

  /** Replaces a user's fault rules (`faults.ts` chooses and applies them); a counted rule gets its count. */
  async setFaults(request: SetFaultsRequest): Promise<HttpAnswer> {
    const connection = await this.applicationConnection(request.connectionID, request.appSecret);
    await this.store.setFaults(
      connection.id,
      request.faults.map((rule) => (rule.times === undefined ? rule : { ...rule, remaining: rule.times })),
    );
    return { status: 200, body: { connectionID: connection.id, faults: request.faults } };
  }

  async exchangeToken(request: ExchangeTokenRequest): Promise<HttpAnswer> {
    const connection = await this.applicationConnection(request.connectionID, request.appSecret);
    const codeDigest = connection.accessCodeDigest;
    const codeMatches = matchesDigest(request.accessCode, codeDigest);
    const expired = this.clock.now() >= (connection.accessCodeExpiresAt ?? 0);
    if (!codeMatches || codeDigest === undefined || expired) {
      throw new ProviderError('INVALID_ACCESS_CODE');
    }
    const accessToken = `${connection.id}.${randomSecret('at_')}`;
    if (!(await this.store.redeemAccessCode(connection.id, codeDigest, digest(accessToken)))) {
      throw new ProviderError('INVALID_ACCESS_CODE');
    }
    const body: ExchangeTokenResponse = { success: true, status: 'done', accessToken };
    return { status: 200, body };
  }

  /** The connection a bearer token and the two secrets name; UNAUTHORIZED on any mismatch. */
  async authenticate(
    authorization: string | undefined,
    appSecret: string,
    userSecret: string,
  ): Promise<ConnectionRecord> {
    // The spec answers any invalid token UNAUTHORIZED: one too long to be a token is one.
    if (isOverLongAuthorization(authorization)) throw new ProviderError('UNAUTHORIZED');
    const token = bearerTokenOf(authorization);
    const connectionId = token?.split('.')[0];
    // A connection id longer than any the sandbox issues names no connection: nothing is read.
    const named = token && connectionId && connectionId.length <= inputLimits.id;
    const connection = named ? await this.store.getConnection(connectionId) : undefined;
    if (!token || !connection || this.expired(connection)) throw new ProviderError('UNAUTHORIZED');
    // Evaluate all three so the time taken does not tell which one was wrong.
    const matches = [
      matchesDigest(token, connection.accessTokenDigest),
      matchesDigest(appSecret, connection.appSecretDigest),
      matchesDigest(userSecret, connection.userSecretDigest),
    ];
    if (matches.includes(false)) throw new ProviderError('UNAUTHORIZED');
    return connection;
  }

  /** A connection named by id, if it belongs to the application whose secret is given. */
  private async applicationConnection(connectionId: string, appSecret: string): Promise<ConnectionRecord> {
    const connection = await this.store.getConnection(connectionId);
    if (!connection || !matchesDigest(appSecret, connection.appSecretDigest) || this.expired(connection)) {
      throw new ProviderError('UNAUTHORIZED');
    }
    return connection;
  }

  /** A user lives `SANDBOX_LIFETIME_MS` (its items' TTL removes it some time after). */
  private expired(connection: ConnectionRecord): boolean {
    return this.clock.now() >= connection.createdAt + SANDBOX_LIFETIME_MS;
  }

  private async authenticateApplication(appSecret: string): Promise<void> {
    if (matchesDigest(appSecret, this.settings.defaultAppSecretDigest)) return;
    const application = await this.store.getApplication(digest(appSecret));
    if (!application || this.clock.now() >= application.expiresAt) throw new ProviderError('UNAUTHORIZED');
  }
}

/** A new user's credit card, due on the 25th of next month. */
function newCard(connectionId: string, currency: CurrencyCode, now: number): CardRecord {
  const today = new Date(now);
  const dueDate = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 25));
  const lastFour = String(Math.floor(Math.random() * 10_000)).padStart(4, '0');
  return {
    connectionId,
    id: newId('card'),
    currency,
    cardNumber: `**** **** **** ${lastFour}`,
    availableMinor: toMinorUnits(15_000, currency),
    outstandingMinor: toMinorUnits(2_345.67, currency),
    amountDueMinor: toMinorUnits(234.57, currency),
    dueDate: dueDate.toISOString(),
  };
}
