/**
 * The sandbox table (single-table design). Every access is by key; listing a user's beneficiaries is
 * one Query on the user's partition. Rules that span items are one transaction.
 *
 * | Entity          | pk                      | sk                     | TTL     |
 * |-----------------|-------------------------|------------------------|---------|
 * | Application     | APP#<secret digest>     | APP                    | none    |
 * | Connection/user | CONN#<connectionID>     | CONNECTION             | 30 days |
 * | Account         | CONN#<connectionID>     | ACCOUNT#<accountID>    | 30 days |
 * | Card            | CONN#<connectionID>     | CARD#<cardID>          | 30 days |
 * | Beneficiary     | CONN#<connectionID>     | BENEFICIARY#<id>       | 30 days |
 * | IBAN uniqueness | CONN#<connectionID>     | IBAN#<iban>            | 30 days |
 * | Transfer        | CONN#<connectionID>     | TRANSFER#<reference>   | 30 days |
 * | Operation       | OPERATION#<id>          | OPERATION              | 7 days  |
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
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
  type BeneficiaryRecord,
  type CardRecord,
  type ConnectionRecord,
  type OperationPrecondition,
  type OperationRecord,
  type SandboxStore,
  StoreConflict,
  type StoredFault,
  type TransferRecord,
} from '#shared/sandbox/store';

const DAY_SECONDS = 86_400;
const userTtlSeconds = 30 * DAY_SECONDS;
const operationTtlSeconds = 7 * DAY_SECONDS;

const keys = {
  application: (digest: string) => ({ pk: `APP#${digest}`, sk: 'APP' }),
  connection: (id: string) => ({ pk: `CONN#${id}`, sk: 'CONNECTION' }),
  account: (connectionId: string, id: string) => ({ pk: `CONN#${connectionId}`, sk: `ACCOUNT#${id}` }),
  card: (connectionId: string, id: string) => ({ pk: `CONN#${connectionId}`, sk: `CARD#${id}` }),
  beneficiary: (connectionId: string, id: string) => ({
    pk: `CONN#${connectionId}`,
    sk: `BENEFICIARY#${id}`,
  }),
  iban: (connectionId: string, iban: string) => ({ pk: `CONN#${connectionId}`, sk: `IBAN#${iban}` }),
  transfer: (connectionId: string, reference: string) => ({
    pk: `CONN#${connectionId}`,
    sk: `TRANSFER#${reference}`,
  }),
  operation: (id: string) => ({ pk: `OPERATION#${id}`, sk: 'OPERATION' }),
};

type Key = { pk: string; sk: string };

function toItem<T extends object>(key: Key, record: T, createdAtMs: number, ttlSeconds: number) {
  return { ...key, ...record, expiresAt: Math.floor(createdAtMs / 1000) + ttlSeconds };
}

function fromItem<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, expiresAt: _expiresAt, ...record } = item;
  return record as T;
}

const operationCondition: Record<OperationPrecondition, { ConditionExpression: string; values: object }> = {
  new: { ConditionExpression: 'attribute_not_exists(pk)', values: {} },
  awaiting_input: { ConditionExpression: '#state = :awaiting', values: { ':awaiting': 'awaiting_input' } },
};

/**
 * Why a transaction was cancelled: the index of the first item whose condition failed, or
 * `contention` when another transaction touched the same items at the same moment.
 */
function cancellation(error: unknown): number | 'contention' | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  const reasons = error.CancellationReasons ?? [];
  const index = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
  if (index >= 0) return index;
  return reasons.some((reason) => reason.Code === 'TransactionConflict') ? 'contention' : undefined;
}

export class SandboxTable implements SandboxStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async applicationExists(appSecretDigest: string): Promise<boolean> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: keys.application(appSecretDigest) }),
    );
    return Item !== undefined;
  }

  async putApplication(appSecretDigest: string, createdAt: number): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.application(appSecretDigest), createdAt },
      }),
    );
  }

  async createUser(
    connection: ConnectionRecord,
    accounts: AccountRecord[],
    cards: CardRecord[],
  ): Promise<void> {
    const at = connection.createdAt;
    const items = [
      toItem(keys.connection(connection.id), connection, at, userTtlSeconds),
      ...accounts.map((account) =>
        toItem(keys.account(account.connectionId, account.id), account, at, userTtlSeconds),
      ),
      ...cards.map((card) => toItem(keys.card(card.connectionId, card.id), card, at, userTtlSeconds)),
    ];
    await this.client.send(
      new TransactWriteCommand({
        TransactItems: items.map((Item) => ({
          Put: { TableName: this.tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' },
        })),
      }),
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
            'attribute_exists(pk) AND (attribute_not_exists(lockOperationId) OR lockOperationId = :operation OR lockUntil < :now)',
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

  async getUserAssets(connectionId: string) {
    const assets = {
      accounts: [] as AccountRecord[],
      cards: [] as CardRecord[],
      transfers: [] as TransferRecord[],
    };
    const groups: Record<string, unknown[]> = {
      ACCOUNT: assets.accounts,
      CARD: assets.cards,
      TRANSFER: assets.transfers,
    };
    for (const item of await this.userItems(connectionId)) {
      const group = groups[String(item.sk).split('#')[0] ?? ''];
      if (group) group.push(fromItem(item));
    }
    assets.transfers.sort((a, b) => a.createdAt - b.createdAt);
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

  /** Every item of a user's partition (those whose sort key starts with `prefix`), all pages. */
  private async userItems(connectionId: string, prefix?: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tableName,
        KeyConditionExpression: prefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
        ExpressionAttributeValues: {
          ':pk': `CONN#${connectionId}`,
          ...(prefix ? { ':prefix': prefix } : {}),
        },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) items.push(...(page.Items ?? []));
    return items;
  }

  getOperation(operationId: string) {
    return this.get<OperationRecord>(keys.operation(operationId));
  }

  async saveOperation(operation: OperationRecord, precondition: OperationPrecondition): Promise<void> {
    const { ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues } =
      this.operationCondition(precondition);
    const saved = await conditionally(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: this.operationItem(operation),
          ConditionExpression,
          ExpressionAttributeNames,
          ExpressionAttributeValues,
        }),
      ),
    );
    if (!saved) throw new StoreConflict('operation');
  }

  async createBeneficiary(
    beneficiary: BeneficiaryRecord,
    operation: OperationRecord,
    precondition: OperationPrecondition,
  ): Promise<void> {
    const at = beneficiary.createdAt;
    const transactItems = [
      {
        Put: {
          TableName: this.tableName,
          Item: toItem(
            keys.iban(beneficiary.connectionId, beneficiary.iban),
            { beneficiaryId: beneficiary.id },
            at,
            userTtlSeconds,
          ),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: this.tableName,
          Item: toItem(
            keys.beneficiary(beneficiary.connectionId, beneficiary.id),
            beneficiary,
            at,
            userTtlSeconds,
          ),
        },
      },
      {
        Put: {
          TableName: this.tableName,
          Item: this.operationItem(operation),
          ...this.operationCondition(precondition),
        },
      },
    ];
    await this.transact(transactItems, ['duplicate_beneficiary', undefined, 'operation']);
  }

  async commitTransfer(
    transfer: TransferRecord,
    operation: OperationRecord,
    precondition: OperationPrecondition,
  ): Promise<void> {
    const at = transfer.createdAt;
    const beneficiaryId = transfer.receiver.beneficiaryId;
    const transactItems = [
      {
        Update: {
          TableName: this.tableName,
          Key: keys.account(transfer.connectionId, transfer.senderId),
          UpdateExpression: 'SET balanceMinor = balanceMinor - :amount',
          ConditionExpression: 'balanceMinor >= :amount',
          ExpressionAttributeValues: { ':amount': transfer.amountMinor },
        },
      },
      {
        Put: {
          TableName: this.tableName,
          Item: toItem(
            keys.transfer(transfer.connectionId, transfer.reference),
            transfer,
            at,
            userTtlSeconds,
          ),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: this.tableName,
          Item: this.operationItem(operation),
          ...this.operationCondition(precondition),
        },
      },
      ...(beneficiaryId === undefined
        ? []
        : [
            {
              Update: {
                TableName: this.tableName,
                Key: keys.beneficiary(transfer.connectionId, beneficiaryId),
                UpdateExpression: 'SET firstTransferAt = if_not_exists(firstTransferAt, :at)',
                ExpressionAttributeValues: { ':at': at },
              },
            },
          ]),
    ];
    await this.transact(transactItems, ['insufficient_balance', 'operation', 'operation']);
  }

  private operationItem(operation: OperationRecord) {
    return toItem(keys.operation(operation.id), operation, operation.createdAt, operationTtlSeconds);
  }

  private operationCondition(precondition: OperationPrecondition) {
    const { ConditionExpression, values } = operationCondition[precondition];
    return precondition === 'new'
      ? { ConditionExpression }
      : {
          ConditionExpression,
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: values,
        };
  }

  private async transact(
    TransactItems: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>,
    conflicts: (StoreConflict['reason'] | undefined)[],
  ): Promise<void> {
    try {
      await this.client.send(new TransactWriteCommand({ TransactItems }));
    } catch (error) {
      const cause = cancellation(error);
      const reason = cause === 'contention' ? cause : cause === undefined ? undefined : conflicts[cause];
      if (reason) throw new StoreConflict(reason);
      throw error;
    }
  }

  private async get<T>(Key: Key): Promise<T | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key, ConsistentRead: true }),
    );
    return fromItem<T>(Item);
  }
}
