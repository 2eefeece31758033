/**
 * An in-memory `SandboxStore` for unit tests, faithful to the DynamoDB adapter (`SandboxTable`):
 * records are copied in and out (undefined attributes dropped, as the document client does), every
 * conditional write checks the same condition, and the writes that span items are all-or-nothing
 * with the adapter's conflict reasons: a duplicate IBAN, a debit below zero, an operation whose
 * precondition (`new` or `awaiting_input`) no longer holds. Partitions list in sort-key order.
 *
 * `givenSandbox` (test/support/given-sandbox.ts) builds a `Sandbox` over it.
 */

import {
  type AccountRecord,
  type ApplicationRecord,
  type BeneficiaryCreationCall,
  type BeneficiaryRecord,
  type CallLimit,
  type CardRecord,
  type ConnectionRecord,
  type OperationPrecondition,
  type OperationRecord,
  type SandboxStore,
  StoreConflict,
  type StoredFault,
  type TransferRecord,
} from '#shared/sandbox/store';

/** A copy as the table would store and return it. */
const stored = <T>(record: T): T => JSON.parse(JSON.stringify(record)) as T;

/** Records of one kind, by user and id, listed in id order like the items of a partition. */
class UserRecords<T> {
  private readonly byKey = new Map<string, T>();

  get(connectionId: string, id: string): T | undefined {
    const record = this.byKey.get(`${connectionId}#${id}`);
    return record === undefined ? undefined : stored(record);
  }

  has(connectionId: string, id: string): boolean {
    return this.byKey.has(`${connectionId}#${id}`);
  }

  put(connectionId: string, id: string, record: T): void {
    this.byKey.set(`${connectionId}#${id}`, stored(record));
  }

  list(connectionId: string): T[] {
    return [...this.byKey.entries()]
      .filter(([key]) => key.startsWith(`${connectionId}#`))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, record]) => stored(record));
  }
}

export class FakeSandboxStore implements SandboxStore {
  private readonly applications = new Map<string, ApplicationRecord>();
  private readonly connections = new Map<string, ConnectionRecord>();
  private readonly accounts = new UserRecords<AccountRecord>();
  private readonly cards = new UserRecords<CardRecord>();
  private readonly beneficiaries = new UserRecords<BeneficiaryRecord>();
  private readonly ibans = new UserRecords<{ beneficiaryId: string }>();
  private readonly transfers = new UserRecords<TransferRecord>();
  private readonly creationCalls = new UserRecords<BeneficiaryCreationCall>();
  private readonly operations = new Map<string, OperationRecord>();

  async getApplication(appSecretDigest: string): Promise<ApplicationRecord | undefined> {
    const application = this.applications.get(appSecretDigest);
    return application === undefined ? undefined : { ...application };
  }

  async putApplication(appSecretDigest: string, application: ApplicationRecord): Promise<void> {
    this.applications.set(appSecretDigest, { ...application });
  }

  async createUser(connection: ConnectionRecord, accounts: AccountRecord[], cards: CardRecord[]) {
    const taken =
      this.connections.has(connection.id) ||
      accounts.some((account) => this.accounts.has(account.connectionId, account.id)) ||
      cards.some((card) => this.cards.has(card.connectionId, card.id));
    if (taken) throw new Error('TransactionCanceledException: ConditionalCheckFailed (item exists)');
    this.connections.set(connection.id, stored(connection));
    for (const account of accounts) this.accounts.put(account.connectionId, account.id, account);
    for (const card of cards) this.cards.put(card.connectionId, card.id, card);
  }

  async getConnection(connectionId: string): Promise<ConnectionRecord | undefined> {
    const connection = this.connections.get(connectionId);
    return connection === undefined ? undefined : stored(connection);
  }

  async redeemAccessCode(connectionId: string, accessCodeDigest: string, accessTokenDigest: string) {
    const connection = this.connections.get(connectionId);
    if (connection?.accessCodeDigest !== accessCodeDigest) return false;
    const { accessCodeDigest: _code, accessCodeExpiresAt: _expiry, ...rest } = connection;
    this.connections.set(connectionId, { ...rest, accessTokenDigest });
    return true;
  }

  async setFaults(connectionId: string, faults: StoredFault[]): Promise<void> {
    const connection = this.connections.get(connectionId);
    if (!connection) throw new Error('ConditionalCheckFailedException: no such connection');
    connection.faults = stored(faults);
  }

  async consumeFault(connectionId: string, index: number): Promise<boolean> {
    const rule = this.connections.get(connectionId)?.faults[Math.trunc(index)];
    if (rule?.remaining === undefined || !(rule.remaining > 0)) return false;
    rule.remaining -= 1;
    return true;
  }

  async acquireLock(connectionId: string, operationId: string, until: number, now: number): Promise<boolean> {
    const connection = this.connections.get(connectionId);
    if (!connection) return false;
    const free =
      connection.lockOperationId === undefined ||
      connection.lockOperationId === operationId ||
      (connection.lockUntil ?? 0) <= now;
    if (!free) return false;
    connection.lockOperationId = operationId;
    connection.lockUntil = until;
    return true;
  }

  async releaseLock(connectionId: string, operationId: string, until?: number): Promise<void> {
    const connection = this.connections.get(connectionId);
    // Another operation holds the connection now (ours expired): nothing of ours to release.
    if (connection?.lockOperationId !== operationId) return;
    if (until !== undefined) {
      connection.lockUntil = until;
      return;
    }
    delete connection.lockOperationId;
    delete connection.lockUntil;
  }

  /** The connection's calls inside the window, oldest first (as the table keeps them). */
  private readonly recentCalls = new Map<string, number[]>();

  async countCall(connectionId: string, now: number, limit: CallLimit): Promise<number | undefined> {
    const recent = (this.recentCalls.get(connectionId) ?? []).filter((at) => at > now - limit.windowMs);
    const [oldest] = recent;
    if (recent.length >= limit.calls && oldest !== undefined) return oldest + limit.windowMs - now;
    this.recentCalls.set(connectionId, [...recent, now]);
    return undefined;
  }

  async getUserAssets(connectionId: string) {
    return {
      accounts: this.accounts.list(connectionId),
      cards: this.cards.list(connectionId),
      transfers: this.transfers.list(connectionId).sort((a, b) => a.createdAt - b.createdAt),
      creationCalls: this.creationCalls
        .list(connectionId)
        .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1)),
    };
  }

  async getAccount(connectionId: string, accountId: string) {
    return this.accounts.get(connectionId, accountId);
  }

  async getCard(connectionId: string, cardId: string) {
    return this.cards.get(connectionId, cardId);
  }

  async getBeneficiary(connectionId: string, beneficiaryId: string) {
    return this.beneficiaries.get(connectionId, beneficiaryId);
  }

  async beneficiaryExists(connectionId: string, iban: string): Promise<boolean> {
    return this.ibans.has(connectionId, iban);
  }

  async listBeneficiaries(connectionId: string): Promise<BeneficiaryRecord[]> {
    return this.beneficiaries.list(connectionId).sort((a, b) => a.createdAt - b.createdAt);
  }

  async getOperation(operationId: string): Promise<OperationRecord | undefined> {
    const operation = this.operations.get(operationId);
    return operation === undefined ? undefined : stored(operation);
  }

  async saveOperation(operation: OperationRecord, precondition: OperationPrecondition): Promise<void> {
    if (!this.operationWritable(operation.id, precondition)) throw new StoreConflict('operation');
    this.operations.set(operation.id, stored(operation));
  }

  async recordWrongAnswer(operation: OperationRecord, previousWrongAnswers: number): Promise<void> {
    const existing = this.operations.get(operation.id);
    const awaiting = existing?.state === 'awaiting_input';
    if (!awaiting || (existing.wrongAnswers ?? 0) !== previousWrongAnswers) {
      throw new StoreConflict('operation');
    }
    this.operations.set(operation.id, stored(operation));
  }

  async recordCreationCall(call: BeneficiaryCreationCall): Promise<void> {
    this.creationCalls.put(call.connectionId, call.id, call);
  }

  async createBeneficiary(
    beneficiary: BeneficiaryRecord,
    operation: OperationRecord,
    precondition: OperationPrecondition,
    call: BeneficiaryCreationCall,
  ): Promise<void> {
    const { connectionId } = beneficiary;
    // The transaction's conditions, in the adapter's order; the first that fails names the conflict.
    if (this.ibans.has(connectionId, beneficiary.iban)) throw new StoreConflict('duplicate_beneficiary');
    if (!this.operationWritable(operation.id, precondition)) throw new StoreConflict('operation');
    this.ibans.put(connectionId, beneficiary.iban, { beneficiaryId: beneficiary.id });
    this.beneficiaries.put(connectionId, beneficiary.id, beneficiary);
    this.operations.set(operation.id, stored(operation));
    this.creationCalls.put(connectionId, call.id, call);
  }

  async commitTransfer(
    transfer: TransferRecord,
    operation: OperationRecord,
    precondition: OperationPrecondition,
  ): Promise<void> {
    const { connectionId, receiver } = transfer;
    const account = this.accounts.get(connectionId, transfer.senderId);
    // The transaction's conditions, in the adapter's order; the first that fails names the conflict.
    if (!account || !(account.balanceMinor >= transfer.amountMinor)) {
      throw new StoreConflict('insufficient_balance');
    }
    if (this.transfers.has(connectionId, transfer.reference)) throw new StoreConflict('operation');
    if (!this.operationWritable(operation.id, precondition)) throw new StoreConflict('operation');
    this.accounts.put(connectionId, account.id, {
      ...account,
      balanceMinor: account.balanceMinor - transfer.amountMinor,
    });
    this.transfers.put(connectionId, transfer.reference, transfer);
    this.operations.set(operation.id, stored(operation));
    if (receiver.beneficiaryId !== undefined) {
      // An update without a condition: DynamoDB would create the item if it were missing.
      const beneficiary = this.beneficiaries.get(connectionId, receiver.beneficiaryId);
      const firstTransferAt = beneficiary?.firstTransferAt ?? transfer.createdAt;
      const updated = { ...beneficiary, firstTransferAt } as BeneficiaryRecord;
      this.beneficiaries.put(connectionId, receiver.beneficiaryId, updated);
    }
  }

  /** Every operation of a user, oldest first: not part of the port, for tests to assert what was stored. */
  listOperations(connectionId: string): OperationRecord[] {
    return [...this.operations.values()]
      .filter((operation) => operation.connectionId === connectionId)
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((operation) => stored(operation));
  }

  private operationWritable(operationId: string, precondition: OperationPrecondition): boolean {
    const existing = this.operations.get(operationId);
    return precondition === 'new' ? existing === undefined : existing?.state === 'awaiting_input';
  }
}
