/**
 * The sandbox table: the DynamoDB adapter of `SandboxStore`. Every access is by key; a user's items are
 * one Query on the user's partition. Keys and items are in `sandbox-table-items.ts`, the transactions
 * of rules that span items in `sandbox-table-transactions.ts`.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  paginateQuery,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { conditionally } from '#shared/adapters/dynamodb';
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
  SANDBOX_LIFETIME_MS,
  type SandboxStore,
  StoreConflict,
  type StoredFault,
  type TransferRecord,
} from '#shared/sandbox/store';
import { countCallInWindow } from './sandbox-call-window.ts';
import {
  fromItem,
  type Key,
  keys,
  operationCondition,
  operationItem,
  userItem,
  userPartition,
} from './sandbox-table-items.ts';
import {
  beneficiaryItems,
  type ConflictReasons,
  conflictOf,
  newUserItems,
  type TransactItems,
  transferItems,
} from './sandbox-table-transactions.ts';

export class SandboxTable implements SandboxStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async getApplication(appSecretDigest: string): Promise<ApplicationRecord | undefined> {
    const item = await this.get<ApplicationRecord & { expiresAtMs?: number }>(
      keys.application(appSecretDigest),
    );
    if (!item) return undefined;
    return { createdAt: item.createdAt, expiresAt: item.expiresAtMs ?? item.createdAt + SANDBOX_LIFETIME_MS };
  }

  async putApplication(appSecretDigest: string, application: ApplicationRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        // `expiresAt` (seconds) is the table's TTL attribute; the exact instant is kept beside it.
        Item: {
          ...userItem(
            keys.application(appSecretDigest),
            { createdAt: application.createdAt },
            application.createdAt,
          ),
          expiresAtMs: application.expiresAt,
        },
      }),
    );
  }

  async createUser(
    connection: ConnectionRecord,
    accounts: AccountRecord[],
    cards: CardRecord[],
  ): Promise<void> {
    await this.client.send(
      new TransactWriteCommand({ TransactItems: newUserItems(this.tableName, connection, accounts, cards) }),
    );
  }

  async getConnection(connectionId: string): Promise<ConnectionRecord | undefined> {
    return this.get<ConnectionRecord>(keys.connection(connectionId));
  }

  async redeemAccessCode(connectionId: string, accessCodeDigest: string, accessTokenDigest: string) {
    return conditionally(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.connection(connectionId),
          UpdateExpression: 'SET accessTokenDigest = :token REMOVE accessCodeDigest, accessCodeExpiresAt',
          ConditionExpression: 'accessCodeDigest = :code',
          ExpressionAttributeValues: { ':token': accessTokenDigest, ':code': accessCodeDigest },
        }),
      ),
    );
  }

  async setFaults(connectionId: string, faults: StoredFault[]): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.connection(connectionId),
        UpdateExpression: 'SET faults = :faults',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':faults': faults },
      }),
    );
  }

  async consumeFault(connectionId: string, index: number): Promise<boolean> {
    const remaining = `faults[${Math.trunc(index)}].remaining`;
    return conditionally(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.connection(connectionId),
          UpdateExpression: `SET ${remaining} = ${remaining} - :one`,
          ConditionExpression: `${remaining} > :zero`,
          ExpressionAttributeValues: { ':one': 1, ':zero': 0 },
        }),
      ),
    );
  }

  async acquireLock(connectionId: string, operationId: string, until: number, now: number): Promise<boolean> {
    return conditionally(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.connection(connectionId),
          UpdateExpression: 'SET lockOperationId = :operation, lockUntil = :until',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(lockOperationId) OR lockOperationId = :operation OR lockUntil <= :now)',
          ExpressionAttributeValues: { ':operation': operationId, ':until': until, ':now': now },
        }),
      ),
    );
  }

  async releaseLock(connectionId: string, operationId: string, until?: number): Promise<void> {
    // Another operation holds the connection now (ours expired): nothing of ours to release.
    await conditionally(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.connection(connectionId),
          ...(until === undefined
            ? { UpdateExpression: 'REMOVE lockOperationId, lockUntil' }
            : { UpdateExpression: 'SET lockUntil = :until', ExpressionAttributeValues: { ':until': until } }),
          ConditionExpression: 'lockOperationId = :operation',
          ExpressionAttributeValues: {
            ':operation': operationId,
            ...(until === undefined ? {} : { ':until': until }),
          },
        }),
      ),
    );
  }

  countCall(connectionId: string, now: number, limit: CallLimit) {
    return countCallInWindow(this.client, this.tableName, connectionId, now, limit);
  }

  async getUserAssets(connectionId: string) {
    const assets = {
      accounts: [] as AccountRecord[],
      cards: [] as CardRecord[],
      transfers: [] as TransferRecord[],
      creationCalls: [] as BeneficiaryCreationCall[],
    };
    const groups: Record<string, unknown[]> = {
      ACCOUNT: assets.accounts,
      CARD: assets.cards,
      TRANSFER: assets.transfers,
      CREATION: assets.creationCalls,
    };
    for (const item of await this.userItems(connectionId)) {
      const group = groups[String(item.sk).split('#')[0] ?? ''];
      if (group) group.push(fromItem(item));
    }
    assets.transfers.sort((a, b) => a.createdAt - b.createdAt);
    // Their ids are sortable: in the order the calls were made.
    assets.creationCalls.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
    return assets;
  }

  getAccount(connectionId: string, accountId: string) {
    return this.get<AccountRecord>(keys.account(connectionId, accountId));
  }

  getCard(connectionId: string, cardId: string) {
    return this.get<CardRecord>(keys.card(connectionId, cardId));
  }

  getBeneficiary(connectionId: string, beneficiaryId: string) {
    return this.get<BeneficiaryRecord>(keys.beneficiary(connectionId, beneficiaryId));
  }

  async beneficiaryExists(connectionId: string, iban: string): Promise<boolean> {
    return (await this.get(keys.iban(connectionId, iban))) !== undefined;
  }

  async listBeneficiaries(connectionId: string): Promise<BeneficiaryRecord[]> {
    const items = await this.userItems(connectionId, 'BENEFICIARY#');
    return items
      .map((item) => fromItem<BeneficiaryRecord>(item))
      .filter((beneficiary): beneficiary is BeneficiaryRecord => beneficiary !== undefined)
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  getOperation(operationId: string) {
    return this.get<OperationRecord>(keys.operation(operationId));
  }

  async saveOperation(operation: OperationRecord, precondition: OperationPrecondition): Promise<void> {
    const saved = await conditionally(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: operationItem(operation),
          ...operationCondition(precondition),
        }),
      ),
    );
    if (!saved) throw new StoreConflict('operation');
  }

  async recordWrongAnswer(operation: OperationRecord, previousWrongAnswers: number): Promise<void> {
    const saved = await conditionally(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: operationItem(operation),
          ConditionExpression: '#state = :awaiting AND wrongAnswers = :previous',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':awaiting': 'awaiting_input', ':previous': previousWrongAnswers },
        }),
      ),
    );
    if (!saved) throw new StoreConflict('operation');
  }

  async recordCreationCall(call: BeneficiaryCreationCall): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: userItem(keys.creationCall(call.connectionId, call.id), call, call.at),
      }),
    );
  }

  async createBeneficiary(
    beneficiary: BeneficiaryRecord,
    operation: OperationRecord,
    precondition: OperationPrecondition,
    call: BeneficiaryCreationCall,
  ): Promise<void> {
    const { items, reasons } = beneficiaryItems(this.tableName, beneficiary, operation, precondition, call);
    await this.transact(items, reasons);
  }

  async commitTransfer(
    transfer: TransferRecord,
    operation: OperationRecord,
    precondition: OperationPrecondition,
  ): Promise<void> {
    const { items, reasons } = transferItems(this.tableName, transfer, operation, precondition);
    await this.transact(items, reasons);
  }

  /** Every item of a user's partition (those whose sort key starts with `prefix`), all pages. */
  private async userItems(connectionId: string, prefix?: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tableName,
        KeyConditionExpression: prefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
        ExpressionAttributeValues: {
          ':pk': userPartition(connectionId),
          ...(prefix ? { ':prefix': prefix } : {}),
        },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) items.push(...(page.Items ?? []));
    return items;
  }

  private async transact(TransactItems: TransactItems, reasons: ConflictReasons): Promise<void> {
    try {
      await this.client.send(new TransactWriteCommand({ TransactItems }));
    } catch (error) {
      throw conflictOf(error, reasons) ?? error;
    }
  }

  private async get<T>(Key: Key): Promise<T | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key, ConsistentRead: true }),
    );
    return fromItem<T>(Item);
  }
}
