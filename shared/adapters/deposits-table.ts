/**
 * The deposits table, one adapter per entity it holds (each implements one port of
 * `shared/deposits/ports.ts`). Every access is by key, except the sweeper's, which queries a sparse
 * index of the deposits still in flight by the time they are due a look.
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
import type { BeneficiaryClaim, Deposit } from '#shared/deposits/model';
import type {
  BeneficiaryClaims,
  ConnectionLeases,
  DepositRecords,
  DueDeposits,
  IdempotencyRecords,
} from '#shared/deposits/ports';

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

interface Table {
  client: DynamoDBDocumentClient;
  tableName: string;
}

async function getItem<T>(table: Table, Key: { pk: string; sk: string }): Promise<T | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key, ConsistentRead: true }),
  );
  return fromItem<T>(Item);
}

/** Deposit items: read by id, written conditionally on the version the writer read. */
export class DepositItems implements DepositRecords {
  constructor(private readonly table: Table) {}

  get(depositId: string): Promise<Deposit | undefined> {
    return getItem<Deposit>(this.table, keys.deposit(depositId));
  }

  save(deposit: Deposit, expectedVersion: number): Promise<boolean> {
    return conditionally(
      this.table.client.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: depositItem(deposit),
          ConditionExpression: 'version = :expected',
          ExpressionAttributeValues: { ':expected': expectedVersion },
        }),
      ),
    );
  }
}

/** A new deposit and its idempotency record, written in one transaction. */
export class IdempotencyItems implements IdempotencyRecords {
  constructor(private readonly table: Table) {}

  async createOnce(deposit: Deposit) {
    const idempotency = keys.idempotency(deposit.ownerKey, deposit.idempotencyKey);
    const { tableName } = this.table;
    try {
      await this.table.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
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
                TableName: tableName,
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
      const record = await getItem<{ depositId: string }>(this.table, idempotency);
      return { created: false as const, depositId: record?.depositId };
    }
  }
}

/** The sparse index of deposits in flight, by the time they are due a look. */
export class DueDepositsIndex implements DueDeposits {
  constructor(private readonly table: Table) {}

  async findDue(now: number, limit: number): Promise<Deposit[]> {
    const pages = await Promise.all(
      Array.from({ length: CHECK_SHARDS }, (_, shard) =>
        this.table.client.send(
          new QueryCommand({
            TableName: this.table.tableName,
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

  defer(deposit: Deposit, checkAt: number): Promise<boolean> {
    return conditionally(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.deposit(deposit.id),
          UpdateExpression: 'SET checkAt = :checkAt, redrives = :redrives',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: {
            ':checkAt': checkAt,
            ':redrives': (deposit.redrives ?? 0) + 1,
            ':version': deposit.version,
          },
        }),
      ),
    );
  }
}

/** Beneficiary claims: one creator per connection and wallet account. */
export class BeneficiaryClaimItems implements BeneficiaryClaims {
  constructor(private readonly table: Table) {}

  get(ownerKey: string, walletAccountId: string) {
    return getItem<BeneficiaryClaim>(this.table, keys.beneficiary(ownerKey, walletAccountId));
  }

  claim(claim: BeneficiaryClaim, staleBefore: number): Promise<boolean> {
    return this.put(claim, {
      // Free, or a creation claim whose holder went quiet; never over a created beneficiary.
      ConditionExpression: 'attribute_not_exists(pk) OR (#state = :creating AND claimedAt < :stale)',
      ExpressionAttributeValues: { ':creating': 'creating', ':stale': staleBefore },
    });
  }

  update(claim: BeneficiaryClaim): Promise<boolean> {
    return this.put(claim, {
      ConditionExpression: 'depositId = :deposit AND #state = :creating',
      ExpressionAttributeValues: { ':deposit': claim.depositId, ':creating': 'creating' },
    });
  }

  async markUsed(ownerKey: string, walletAccountId: string): Promise<void> {
    await conditionally(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.beneficiary(ownerKey, walletAccountId),
          UpdateExpression: 'SET used = :true',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':true': true },
        }),
      ),
    );
  }

  async release(ownerKey: string, walletAccountId: string, depositId: string): Promise<void> {
    await conditionally(
      this.table.client.send(
        new DeleteCommand({
          TableName: this.table.tableName,
          Key: keys.beneficiary(ownerKey, walletAccountId),
          ConditionExpression: 'depositId = :deposit AND #state = :creating',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':deposit': depositId, ':creating': 'creating' },
        }),
      ),
    );
  }

  private put(
    claim: BeneficiaryClaim,
    condition: { ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> },
  ) {
    return conditionally(
      this.table.client.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: { ...keys.beneficiary(claim.ownerKey, claim.walletAccountId), ...claim },
          ExpressionAttributeNames: { '#state': 'state' },
          ...condition,
        }),
      ),
    );
  }
}

/** Connection leases: one provider operation at a time per user connection. */
export class ConnectionLeaseItems implements ConnectionLeases {
  constructor(private readonly table: Table) {}

  acquire(ownerKey: string, holder: string, until: number, now: number, reclaimable?: string) {
    return conditionally(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
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

  async release(ownerKey: string, holder: string): Promise<void> {
    await conditionally(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
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
