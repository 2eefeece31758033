/**
 * The provider sandbox: every operation of the interface over simulated banks. Pure domain: storage
 * comes in through `SandboxStore`, time through a clock, so the same rules run on one process or many.
 *
 * Every provider operation follows one path (`run`):
 *   1. take the user's connection (one operation at a time), or re-take it to answer user input;
 *   2. `prepare`: check the request against the bank's rules; a refusal becomes a failed operation;
 *   3. ask for a one-time password when the bank wants one, and stop there until it is answered;
 *   4. `commit`: write the outcome and the operation record in one transaction;
 *   5. answer: the envelope (`sync: true`) or `initialized` to be polled (`sync: false`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ulid } from 'ulid';
import { isValidIban, normalizeIban } from '#shared/iban';
import { AmountError, type CurrencyCode, currencyObject, fromMinorUnits, toMinorUnits } from '#shared/money';
import { digest, matchesDigest, randomSecret } from '#shared/secrets';
import { badRequest, ProviderError } from '#shared/spec/errors';
import { periodMs } from '#shared/spec/period';
import type {
  AutoflowTransferRequest,
  BalanceRequest,
  CreateBeneficiaryRequest,
  CreateSandboxUserRequest,
  CreateSandboxUserResponse,
  ExchangeTokenRequest,
  ExchangeTokenResponse,
  FaultRule,
  ListBeneficiariesRequest,
  ListedBeneficiary,
  MetadataRequest,
  OperationGetRequest,
  SandboxUserRequest,
  SandboxUserResponse,
  SetFaultsRequest,
  TransferRequest,
  UserInput,
} from '#shared/spec/schemas';
import { findBank, type SandboxBank, sandboxBanks } from './catalog.ts';
import {
  type BeneficiaryRecord,
  type ConnectionRecord,
  type Envelope,
  type OperationKind,
  type OperationPrecondition,
  type OperationRecord,
  type SandboxStore,
  StoreConflict,
  type TransferRecord,
} from './store.ts';

export const SANDBOX_OTP = '123456';

export interface SandboxOptions {
  /** Digest of the sandbox application's secret (`SANDBOX_APP_SECRET`). */
  defaultAppSecretDigest: string;
  /** How long an operation sent with `sync: false` stays `initialized`. */
  asyncDelayMs: number;
  /** How long an operation waits for user input before it expires. */
  inputTtlMs: number;
  /** Longest an operation may hold its connection if its process dies mid-way. */
  lockMs: number;
  accessCodeTtlMs: number;
}

export interface HttpAnswer {
  status: number;
  body: Record<string, unknown>;
}

type IdField = 'jobID' | 'operationID';

interface OperationSpec<Plan> {
  kind: OperationKind;
  idField: IdField;
  request: { sync: boolean; userInputs?: UserInput[] | undefined } & Partial<Record<IdField, string>>;
  asksForInput: boolean;
  prepare(now: number): Promise<Plan>;
  /** Fields the `done` envelope carries besides id, success and status. */
  result(plan: Plan): Record<string, unknown>;
  /** Writes the outcome together with the operation record. Defaults to writing the record alone. */
  commit?(plan: Plan, operation: OperationRecord, precondition: OperationPrecondition): Promise<void>;
}

const otpQuestion: UserInput = {
  id: 'otp',
  index: 0,
  query: 'Enter the one-time password sent to your registered mobile number',
  answer: '',
};

/** Request fields that do not belong to what an operation asks the bank to do. */
const notFingerprinted = new Set(['appSecret', 'userSecret', 'sync', 'userInputs', 'jobID', 'operationID']);

export class Sandbox {
  constructor(
    private readonly store: SandboxStore,
    private readonly options: SandboxOptions,
    private readonly now: () => number = Date.now,
  ) {}

  // -------------------------------------------------------------------------------------------
  // Administration

  banks(): HttpAnswer {
    return {
      status: 200,
      body: { banks: sandboxBanks.map(({ bankId, accountsMetadata }) => ({ bankId, accountsMetadata })) },
    };
  }

  async createApplication(): Promise<HttpAnswer> {
    const appSecret = randomSecret('app_');
    await this.store.putApplication(digest(appSecret), this.now());
    return { status: 201, body: { appSecret } };
  }

  async createUser(request: CreateSandboxUserRequest): Promise<HttpAnswer> {
    await this.authenticateApplication(request.appSecret);
    const bank = findBank(request.bankId);
    if (!bank) throw new ProviderError('INVALID_BANK_ID', `No sandbox bank with bankId ${request.bankId}`);
    const balanceMinor =
      request.balance === undefined
        ? bank.openingBalanceMinor
        : minorUnits(request.balance, bank.currency, 'balance');

    const now = this.now();
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
          now + (request.accessCodeTtlSeconds ?? this.options.accessCodeTtlMs / 1000) * 1000,
        ...(request.inputTtlSeconds === undefined ? {} : { inputTtlMs: request.inputTtlSeconds * 1000 }),
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

  /** A user's accounts (with current balances), cards and transfers, for tests to assert on. */
  async getUser(request: SandboxUserRequest): Promise<HttpAnswer> {
    const connection = await this.applicationConnection(request.connectionID, request.appSecret);
    const { accounts, cards, transfers } = await this.store.getUserAssets(connection.id);
    const body: SandboxUserResponse = {
      connectionID: connection.id,
      bankId: connection.bankId,
      accounts: accounts.map((account) => ({
        id: account.id,
        currency: account.currency,
        balance: fromMinorUnits(account.balanceMinor, account.currency),
      })),
      cards: cards.map((card) => ({ id: card.id })),
      transfers: transfers.map((transfer) => ({
        reference: transfer.reference,
        operationID: transfer.operationId,
        senderID: transfer.senderId,
        amount: fromMinorUnits(transfer.amountMinor, transfer.currency),
        currency: transfer.currency,
        type: transfer.transferType,
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
    };
    return { status: 200, body };
  }

  async setFaults(request: SetFaultsRequest): Promise<HttpAnswer> {
    const connection = await this.applicationConnection(request.connectionID, request.appSecret);
    await this.store.setFaults(
      connection.id,
      request.faults.map((rule) => (rule.times === undefined ? rule : { ...rule, remaining: rule.times })),
    );
    return { status: 200, body: { connectionID: connection.id, faults: request.faults } };
  }

  /**
   * The fault that applies to this request: one sent in its headers, else the connection's first
   * matching rule (a counted rule is used up one request at a time).
   */
  async faultFor(connection: ConnectionRecord | undefined, path: string, fromHeaders: FaultRule | undefined) {
    if (fromHeaders) return fromHeaders;
    if (!connection) return undefined;
    for (const [index, rule] of connection.faults.entries()) {
      if (rule.path !== undefined && rule.path !== path) continue;
      if (rule.remaining !== undefined && !(await this.store.consumeFault(connection.id, index))) continue;
      return rule;
    }
    return undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Authentication

  async exchangeToken(request: ExchangeTokenRequest): Promise<HttpAnswer> {
    const connection = await this.applicationConnection(request.connectionID, request.appSecret);
    const codeDigest = connection.accessCodeDigest;
    const codeMatches = matchesDigest(request.accessCode, codeDigest);
    if (!codeMatches || codeDigest === undefined || this.now() >= (connection.accessCodeExpiresAt ?? 0)) {
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
  async authenticate(authorization: string | undefined, appSecret: string, userSecret: string) {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '')?.[1];
    const connectionId = token?.split('.')[0];
    const connection = token && connectionId ? await this.store.getConnection(connectionId) : undefined;
    if (!token || !connection) throw new ProviderError('UNAUTHORIZED');
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
    if (!connection || !matchesDigest(appSecret, connection.appSecretDigest)) {
      throw new ProviderError('UNAUTHORIZED');
    }
    return connection;
  }

  private async authenticateApplication(appSecret: string): Promise<void> {
    const known =
      matchesDigest(appSecret, this.options.defaultAppSecretDigest) ||
      (await this.store.applicationExists(digest(appSecret)));
    if (!known) throw new ProviderError('UNAUTHORIZED');
  }

  // -------------------------------------------------------------------------------------------
  // Provider operations

  getMetadata(connection: ConnectionRecord, request: MetadataRequest, latencyMs = 0) {
    const bank = bankOf(connection);
    return this.run(connection, latencyMs, {
      kind: 'metadata',
      idField: 'jobID',
      request,
      asksForInput: false,
      prepare: async () => bank.accountsMetadata,
      result: (accountsMetadata) => ({ accountsMetadata }),
    });
  }

  listBeneficiaries(connection: ConnectionRecord, request: ListBeneficiariesRequest, latencyMs = 0) {
    const bank = bankOf(connection);
    return this.run(connection, latencyMs, {
      kind: 'beneficiaries.list',
      idField: 'jobID',
      request,
      asksForInput: false,
      prepare: async (now) => {
        const all = await this.store.listBeneficiaries(connection.id);
        const visibleEarly = bank.accountsMetadata.willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod;
        return all
          .filter((beneficiary) => visibleEarly || now >= beneficiary.coolDownUntil)
          .map(
            (beneficiary): ListedBeneficiary => ({
              id: beneficiary.id,
              name: beneficiary.name,
              accountNumber: beneficiary.accountNumber,
              type: transferType(bank, beneficiary.swiftCode),
              status: now >= beneficiary.coolDownUntil ? 'approved' : 'pending',
            }),
          );
      },
      result: (beneficiaries) => ({ beneficiaries }),
    });
  }

  createBeneficiary(connection: ConnectionRecord, request: CreateBeneficiaryRequest, latencyMs = 0) {
    const bank = bankOf(connection);
    return this.run(connection, latencyMs, {
      kind: 'beneficiaries.create',
      idField: 'jobID',
      request,
      asksForInput: bank.otp.beneficiary,
      prepare: async (now): Promise<BeneficiaryRecord> => {
        if (!bank.accountsMetadata.isCreateBeneficiaryEndpointRequired) {
          throw new ProviderError('BENEFICIARY_NOT_SUPPORTED');
        }
        const iban = validIban(request.iban);
        if (await this.store.beneficiaryExists(connection.id, iban)) {
          throw new ProviderError('BENEFICIARY_ALREADY_EXISTS');
        }
        return {
          connectionId: connection.id,
          id: newId('ben'),
          type: request.type,
          name: request.name,
          iban,
          accountNumber: request.accountNumber,
          swiftCode: request.swiftCode,
          sortCode: request.sortCode,
          bankName: request.bankName,
          country: request.country,
          branchName: request.branchName,
          branchAddress: request.branchAddress,
          address: request.address,
          createdAt: now,
          coolDownUntil: now + periodMs(bank.accountsMetadata.beneficiaryCoolDownPeriod),
        };
      },
      // The reference of a created beneficiary is its id: the `receiverID` of later transfers.
      result: (beneficiary) => ({ reference: beneficiary.id }),
      commit: (beneficiary, operation, precondition) =>
        this.store.createBeneficiary(beneficiary, operation, precondition),
    });
  }

  createTransfer(connection: ConnectionRecord, request: TransferRequest, latencyMs = 0) {
    const bank = bankOf(connection);
    const refusal = bank.accountsMetadata.isCreateBeneficiaryEndpointRequired
      ? undefined
      : new ProviderError('BENEFICIARY_NOT_SUPPORTED');
    return this.transfer(connection, latencyMs, 'transfer.create', request, refusal, async (now) => {
      const beneficiary = await this.store.getBeneficiary(connection.id, request.receiverID);
      if (!beneficiary) throw new ProviderError('INVALID_BENEFICIARY_ID');
      if (now < beneficiary.coolDownUntil) {
        throw new ProviderError(
          'BENEFICIARY_COOL_DOWN_PERIOD',
          `The beneficiary is in its cool-down period until ${new Date(beneficiary.coolDownUntil).toISOString()}`,
        );
      }
      if (request.beneficiary && normalizeIban(request.beneficiary.iban) !== beneficiary.iban) {
        throw new ProviderError('BENEFICIARY_DETAILS_MISMATCH');
      }
      if (bank.detailsOnFirstTransfer && beneficiary.firstTransferAt === undefined && !request.beneficiary) {
        throw new ProviderError('BENEFICIARY_DETAILS_REQUIRED');
      }
      const { id: beneficiaryId, name, iban, swiftCode } = beneficiary;
      return { beneficiaryId, name, iban, swiftCode };
    });
  }

  createAutoflowTransfer(connection: ConnectionRecord, request: AutoflowTransferRequest, latencyMs = 0) {
    const bank = bankOf(connection);
    const refusal = bank.accountsMetadata.isCreateBeneficiaryEndpointRequired
      ? new ProviderError('BENEFICIARY_REQUIRED')
      : undefined;
    return this.transfer(connection, latencyMs, 'transfer.autoflow', request, refusal, async () => {
      const { name, iban, swiftCode } = request.beneficiary;
      return { name, iban: validIban(iban), swiftCode };
    });
  }

  /**
   * Both transfer endpoints: the bank's refusal of this endpoint, the sender's account and the
   * amount in its minor units, the receiver, the bank's minimum and the balance; then one debit.
   */
  private transfer(
    connection: ConnectionRecord,
    latencyMs: number,
    kind: 'transfer.create' | 'transfer.autoflow',
    request: (TransferRequest | AutoflowTransferRequest) & { sync: boolean },
    refusal: ProviderError | undefined,
    receiverOf: (now: number) => Promise<TransferRecord['receiver']>,
  ) {
    const bank = bankOf(connection);
    return this.run(connection, latencyMs, {
      kind,
      idField: 'operationID',
      request,
      asksForInput: bank.otp.transfer,
      prepare: async (now): Promise<Omit<TransferRecord, 'operationId'>> => {
        if (refusal) throw refusal;
        const account = await this.senderAccount(connection, request.senderID);
        const amountMinor = minorUnits(request.amount, account.currency, 'amount');
        const receiver = await receiverOf(now);
        const type = transferType(bank, receiver.swiftCode);
        checkTransferable(bank, account.currency, type, amountMinor, account.balanceMinor);
        return {
          connectionId: connection.id,
          reference: newReference(),
          senderId: account.id,
          amountMinor,
          currency: account.currency,
          transferType: type,
          receiver,
          createdAt: now,
        };
      },
      result: (transfer) => ({ reference: transfer.reference }),
      commit: (transfer, operation, precondition) =>
        this.store.commitTransfer({ ...transfer, operationId: operation.id }, operation, precondition),
    });
  }

  getCardBalance(connection: ConnectionRecord, request: BalanceRequest, latencyMs = 0) {
    const bank = bankOf(connection);
    return this.run(connection, latencyMs, {
      kind: 'balance',
      idField: 'operationID',
      request,
      asksForInput: bank.otp.balance,
      prepare: async () => {
        const card = await this.store.getCard(connection.id, request.cardID);
        if (!card) throw new ProviderError('INVALID_CARD_ID');
        return {
          availableBalance: fromMinorUnits(card.availableMinor, card.currency),
          outstandingBalance: fromMinorUnits(card.outstandingMinor, card.currency),
          amountDue: fromMinorUnits(card.amountDueMinor, card.currency),
          cardNumber: card.cardNumber,
          dueDate: card.dueDate,
          currency: currencyObject(card.currency),
        };
      },
      result: (balance) => ({ balance }),
    });
  }

  /** The state of an operation of this connection, as `sync: true` would have answered it. */
  async getOperation(connection: ConnectionRecord, request: OperationGetRequest): Promise<HttpAnswer> {
    const idField: IdField = request.operationID === undefined ? 'jobID' : 'operationID';
    const id = request.operationID ?? request.jobID ?? '';
    const operation = await this.store.getOperation(id);
    if (!operation || operation.connectionId !== connection.id || !(idField in operation.response)) {
      throw new ProviderError('INVALID_OPERATION_ID', `No operation with ${idField} ${id}`);
    }
    const now = this.now();
    if (now < operation.completesAt) {
      return { status: 200, body: { [idField]: id, success: true, status: 'initialized' } };
    }
    if (operation.state === 'awaiting_input' && now >= (operation.inputExpiresAt ?? 0)) {
      const expired = new ProviderError('USER_INPUT_EXPIRED');
      return {
        status: 200,
        body: { [idField]: id, success: false, status: 'failed', type: expired.type, msg: expired.message },
      };
    }
    return { status: 200, body: operation.response };
  }

  // -------------------------------------------------------------------------------------------
  // The operation path

  private async run<Plan>(connection: ConnectionRecord, latencyMs: number, spec: OperationSpec<Plan>) {
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

    const now = this.now();
    const operation = await this.store.getOperation(answeredId);
    const waiting =
      operation?.connectionId === connection.id &&
      operation.kind === spec.kind &&
      operation.state === 'awaiting_input' &&
      now >= operation.completesAt;
    if (!operation || !waiting) throw new ProviderError('INVALID_OPERATION_ID');
    if (operation.fingerprint !== fingerprint(spec.request)) throw new ProviderError('OPERATION_MISMATCH');
    await this.takeConnection(connection, operation.id);
    if (now >= (operation.inputExpiresAt ?? 0)) {
      return this.fail(
        connection,
        spec,
        operation.id,
        'awaiting_input',
        new ProviderError('USER_INPUT_EXPIRED'),
      );
    }
    const otp = userInputs.find((input) => input.id === otpQuestion.id)?.answer.trim();
    if (otp !== SANDBOX_OTP) {
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
      if (latencyMs > 0) await sleep(latencyMs);
      const now = this.now();
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
        const inputExpiresAt = base.completesAt + (connection.inputTtlMs ?? this.options.inputTtlMs);
        const response = {
          [spec.idField]: operationId,
          success: true,
          status: 'user_input_required',
          userInputs: [otpQuestion],
        };
        const operation: OperationRecord = { ...base, state: 'awaiting_input', response, inputExpiresAt };
        await this.save(operation, precondition);
        // The connection stays taken while the bank waits for the answer.
        await this.store.releaseLock(connection.id, operationId, inputExpiresAt);
        return this.answer(operation, spec);
      }

      const response = { [spec.idField]: operationId, success: true, status: 'done', ...spec.result(plan) };
      const operation: OperationRecord = { ...base, response };
      try {
        await (spec.commit ? spec.commit(plan, operation, precondition) : this.save(operation, precondition));
      } catch (error) {
        if (error instanceof StoreConflict && error.reason === 'insufficient_balance') {
          return await this.fail(
            connection,
            spec,
            operationId,
            precondition,
            new ProviderError('INSUFFICIENT_BALANCE'),
          );
        }
        if (error instanceof StoreConflict && error.reason === 'duplicate_beneficiary') {
          return await this.fail(
            connection,
            spec,
            operationId,
            precondition,
            new ProviderError('BENEFICIARY_ALREADY_EXISTS'),
          );
        }
        throw error;
      }
      await this.releaseConnection(connection, operation);
      return this.answer(operation, spec);
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

  private async fail<Plan>(
    connection: ConnectionRecord,
    spec: OperationSpec<Plan>,
    operationId: string,
    precondition: OperationPrecondition,
    error: ProviderError,
  ): Promise<HttpAnswer> {
    const operation: OperationRecord = {
      ...this.operationRecord(connection, spec, operationId, this.now()),
      response: {
        [spec.idField]: operationId,
        success: false,
        status: 'failed',
        type: error.type,
        msg: error.message,
        ...(error.details ? { details: error.details } : {}),
      },
      httpStatus: error.status,
    };
    try {
      await this.save(operation, precondition);
    } catch (conflict) {
      await this.store.releaseLock(connection.id, operationId);
      if (conflict instanceof StoreConflict) throw new ProviderError('INVALID_OPERATION_ID');
      throw conflict;
    }
    await this.releaseConnection(connection, operation);
    return this.answer(operation, spec);
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
      completesAt: spec.request.sync ? now : now + this.options.asyncDelayMs,
      createdAt: now,
    };
  }

  private save(operation: OperationRecord, precondition: OperationPrecondition) {
    return this.store.saveOperation(operation, precondition);
  }

  private async takeConnection(connection: ConnectionRecord, operationId: string) {
    const now = this.now();
    if (!(await this.store.acquireLock(connection.id, operationId, now + this.options.lockMs, now))) {
      throw new ProviderError('OPERATION_IN_PROGRESS');
    }
  }

  /** A synchronous operation frees its connection; an asynchronous one holds it until it completes. */
  private releaseConnection(connection: ConnectionRecord, operation: OperationRecord) {
    const until = operation.completesAt > operation.createdAt ? operation.completesAt : undefined;
    return this.store.releaseLock(connection.id, operation.id, until);
  }

  private answer<Plan>(operation: OperationRecord, spec: OperationSpec<Plan>): HttpAnswer {
    if (spec.request.sync) return { status: operation.httpStatus, body: operation.response as Envelope };
    return { status: 202, body: { [spec.idField]: operation.id, success: true, status: 'initialized' } };
  }

  private async senderAccount(connection: ConnectionRecord, senderId: string) {
    const account = await this.store.getAccount(connection.id, senderId);
    if (!account) throw new ProviderError('INVALID_ACCOUNT_ID');
    return account;
  }
}

// ---------------------------------------------------------------------------------------------
// Rules

function bankOf(connection: ConnectionRecord): SandboxBank {
  const bank = findBank(connection.bankId);
  if (!bank) throw new Error(`connection ${connection.id} names unknown bank ${connection.bankId}`);
  return bank;
}

/** `same` when the receiver's SWIFT code names the sender's bank (the first eight characters), else `local`. */
function transferType(bank: SandboxBank, swiftCode: string): 'same' | 'local' {
  const bankCode = (code: string) => code.trim().toUpperCase().slice(0, 8);
  return bankCode(swiftCode) === bankCode(bank.accountsMetadata.swiftCode) ? 'same' : 'local';
}

function checkTransferable(
  bank: SandboxBank,
  currency: CurrencyCode,
  type: 'same' | 'local',
  amountMinor: number,
  balanceMinor: number,
): void {
  const bound = bank.accountsMetadata.transferBounds.find(
    (candidate) => candidate.currency.code === currency && candidate.type === type,
  );
  if (bound && amountMinor < toMinorUnits(bound.minimum, currency)) {
    throw new ProviderError(
      'AMOUNT_BELOW_MINIMUM',
      `The minimum for a ${type} transfer is ${bound.minimum} ${currency}`,
    );
  }
  if (amountMinor > balanceMinor) throw new ProviderError('INSUFFICIENT_BALANCE');
}

function minorUnits(value: number, currency: CurrencyCode, field: string): number {
  try {
    return toMinorUnits(value, currency);
  } catch (error) {
    if (error instanceof AmountError) throw badRequest([`${field}: ${error.message}`]);
    throw error;
  }
}

function validIban(iban: string): string {
  if (!isValidIban(iban)) throw new ProviderError('INVALID_IBAN');
  return normalizeIban(iban);
}

function fingerprint(request: object): string {
  const entries = Object.entries(request).filter(([key]) => !notFingerprinted.has(key));
  return digest(canonicalJson(Object.fromEntries(entries)));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    const record = value as Record<string, unknown>;
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function newId(prefix: string): string {
  return `${prefix}_${ulid()}`;
}

function newReference(): string {
  return `TRF${ulid()}`;
}

function newCard(connectionId: string, currency: CurrencyCode, now: number) {
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
