/**
 * The deposits table. Every access is by key, except the sweeper's, which queries a sparse index of
 * the deposits still in flight by the time they are due a look.
 *
 * | Entity            | pk                                  | sk          | Notes                         |
 * |-------------------|-------------------------------------|-------------|-------------------------------|
 * | Deposit           | DEPOSIT#<id>                        | DEPOSIT     | conditional on `version`      |
 * | Idempotency key   | IDEMPOTENCY#<owner>#<key>           | IDEMPOTENCY | written with the deposit      |
 * | Beneficiary claim | BENEFICIARY#<owner>#<wallet account> | BENEFICIARY | one creator per connection    |
 * | Connection lease  | LEASE#<owner>                       | LEASE       | one provider call at a time   |
 *
 * Index `byCheckAt`: `checkShard` (CHECK#0..7, present only while a deposit is in flight) and `checkAt`.
 */
import { createHash } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { conditionally } from '#shared/adapters/dynamodb';
import type { BeneficiaryClaim, Deposit, DepositStore } from '#shared/deposits/model';

const CHECK_SHARDS = 8;
const idempotencyTtlSeconds = 30 * 86_400;
const depositTtlAfterEndSeconds = 400 * 86_400;

const keys = {
  deposit: (id: string) => ({ pk: `DEPOSIT#${id}`, sk: 'DEPOSIT' }),
  idempotency: (ownerKey: string, key: string) => ({
    pk: `IDEMPOTENCY#${ownerKey}#${key}`,
    sk: 'IDEMPOTENCY',
  }),
  beneficiary: (ownerKey: string, walletAccountId: string) => ({
    pk: `BENEFICIARY#${ownerKey}#${walletAccountId}`,
    sk: 'BENEFICIARY',
  }),
  lease: (ownerKey: string) => ({ pk: `LEASE#${ownerKey}`, sk: 'LEASE' }),
};

function checkShard(depositId: string): string {
  const bucket = createHash('sha256').update(depositId).digest().readUInt8(0) % CHECK_SHARDS;
  return `CHECK#${bucket}`;
}

function depositItem(deposit: Deposit) {
  const final = deposit.status === 'done' || deposit.status === 'failed';
  return {
    ...keys.deposit(deposit.id),
    ...deposit,
    ...(deposit.checkAt === undefined ? {} : { checkShard: checkShard(deposit.id) }),
    // Finished deposits stay readable for a good while, then expire.
    ...(final ? { expiresAt: Math.floor(deposit.updatedAt / 1000) + depositTtlAfterEndSeconds } : {}),
  };
}

function fromItem<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, checkShard: _shard, expiresAt: _expires, ...record } = item;
  return record as T;
}

export class DepositsTable implements DepositStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(deposit: Deposit) {
    const idempotency = keys.idempotency(deposit.ownerKey, deposit.idempotencyKey);
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                Item: {
                  ...idempotency,
                  depositId: deposit.id,
                  expiresAt: Math.floor(deposit.createdAt / 1000) + idempotencyTtlSeconds,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: depositItem(deposit),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return { created: true as const };
    } catch (error) {
      const taken =
        error instanceof TransactionCanceledException &&
        error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed';
      if (!taken) throw error;
      const record = await this.get<{ depositId: string }>(idempotency);
      const existing = record ? await this.get<Deposit>(keys.deposit(record.depositId)) : undefined;
      return { created: false as const, existing };
    }
  }

  get(depositId: string): Promise<Deposit | undefined>;
  get<T>(key: { pk: string; sk: string }): Promise<T | undefined>;
  async get<T>(idOrKey: string | { pk: string; sk: string }): Promise<T | undefined> {
    const Key = typeof idOrKey === 'string' ? keys.deposit(idOrKey) : idOrKey;
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key, ConsistentRead: true }),
    );
    return fromItem<T>(Item);
  }

  async save(deposit: Deposit, expectedVersion: number): Promise<boolean> {
    return conditionally(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: depositItem(deposit),
          ConditionExpression: 'version = :expected',
          ExpressionAttributeValues: { ':expected': expectedVersion },
        }),
      ),
    );
  }

  async findStalled(now: number, limit: number): Promise<Deposit[]> {
    const pages = await Promise.all(
      Array.from({ length: CHECK_SHARDS }, (_, shard) =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: 'byCheckAt',
            KeyConditionExpression: 'checkShard = :shard AND checkAt <= :now',
            ExpressionAttributeValues: { ':shard': `CHECK#${shard}`, ':now': now },
            Limit: limit,
          }),
        ),
      ),
    );
    return pages
      .flatMap((page) => (page.Items ?? []).map((item) => fromItem<Deposit>(item)))
      .filter((deposit): deposit is Deposit => deposit !== undefined)
      .sort((a, b) => (a.checkAt ?? 0) - (b.checkAt ?? 0))
      .slice(0, limit);
  }

  getBeneficiary(ownerKey: string, walletAccountId: string) {
    return this.get<BeneficiaryClaim>(keys.beneficiary(ownerKey, walletAccountId));
  }

  async claimBeneficiary(claim: BeneficiaryClaim, staleBefore: number): Promise<boolean> {
    return conditionally(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.beneficiary(claim.ownerKey, claim.walletAccountId), ...claim },
          // Free, or a creation claim whose holder went quiet; never over a created beneficiary.
          ConditionExpression: 'attribute_not_exists(pk) OR (#state = :creating AND claimedAt < :stale)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':creating': 'creating', ':stale': staleBefore },
        }),
      ),
    );
  }

  async updateBeneficiaryClaim(claim: BeneficiaryClaim): Promise<boolean> {
    return conditionally(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.beneficiary(claim.ownerKey, claim.walletAccountId), ...claim },
          ConditionExpression: 'depositId = :deposit AND #state = :creating',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':deposit': claim.depositId, ':creating': 'creating' },
        }),
      ),
    );
  }

  async markBeneficiaryUsed(ownerKey: string, walletAccountId: string): Promise<void> {
    await conditionally(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.beneficiary(ownerKey, walletAccountId),
          UpdateExpression: 'SET used = :true',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':true': true },
        }),
      ),
    );
  }

  async releaseBeneficiaryClaim(ownerKey: string, walletAccountId: string, depositId: string): Promise<void> {
    await conditionally(
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.beneficiary(ownerKey, walletAccountId),
          ConditionExpression: 'depositId = :deposit AND #state = :creating',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':deposit': depositId, ':creating': 'creating' },
        }),
      ),
    );
  }

  async acquireLease(ownerKey: string, holder: string, until: number, now: number, reclaimable?: string) {
    return conditionally(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.lease(ownerKey),
          UpdateExpression: 'SET holder = :holder, #until = :until',
          ConditionExpression:
            'attribute_not_exists(holder) OR holder = :holder OR holder = :reclaimable OR #until < :now',
          ExpressionAttributeNames: { '#until': 'until' },
          ExpressionAttributeValues: {
            ':holder': holder,
            ':reclaimable': reclaimable ?? holder,
            ':until': until,
            ':now': now,
          },
        }),
      ),
    );
  }

  async releaseLease(ownerKey: string, holder: string): Promise<void> {
    await conditionally(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.lease(ownerKey),
          UpdateExpression: 'REMOVE holder, #until',
          ConditionExpression: 'holder = :holder',
          ExpressionAttributeNames: { '#until': 'until' },
          ExpressionAttributeValues: { ':holder': holder },
        }),
      ),
    );
  }
}
