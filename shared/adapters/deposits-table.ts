/**
 * The deposits table, one adapter per entity it holds (each implements one port of
 * `shared/deposits/ports.ts`; keys and items in `deposits-table-items.ts`). Every access here is by
 * key; the queries of the table's indexes are in `deposits-indexes.ts`.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
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
  IdempotencyRecords,
} from '#shared/deposits/ports';
import {
  claimTtlSeconds,
  depositItem,
  fromItem,
  getItem,
  idempotencyTtlSeconds,
  isFinal,
  keys,
  leaseTtlAfterUntilSeconds,
  MAX_CONFLICT_RETRIES,
  sealedItem,
  type Table,
} from './deposits-table-items.ts';

/**
 * Deposit items: read by id, written conditionally on the version the writer read. The sealed
 * credentials live in an item of their own in the deposit's partition: a reader that opens them
 * (`withCredentials`, the steps that call the provider) reads both in one Query; any other reads the
 * deposit alone, without them. The write that ends a deposit deletes them in the same transaction.
 */
export class DepositItems implements DepositRecords {
  constructor(
    private readonly table: Table,
    private readonly options: { withCredentials?: boolean } = {},
  ) {}

  async get(depositId: string): Promise<Deposit | undefined> {
    if (!this.options.withCredentials) return getItem<Deposit>(this.table, keys.deposit(depositId));
    const { pk } = keys.deposit(depositId);
    const { Items = [] } = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
      }),
    );
    const deposit = fromItem<Deposit>(Items.find((item) => item.sk === keys.deposit(depositId).sk));
    const sealed = Items.find((item) => item.sk === keys.sealed(depositId).sk)?.sealedCredentials;
    return deposit && typeof sealed === 'string' ? { ...deposit, sealedCredentials: sealed } : deposit;
  }

  async save(deposit: Deposit, expectedVersion: number): Promise<boolean> {
    const put = {
      TableName: this.table.tableName,
      Item: depositItem(deposit),
      ConditionExpression: 'version = :expected',
      ExpressionAttributeValues: { ':expected': expectedVersion },
    };
    if (!isFinal(deposit)) return conditionally(this.table.client.send(new PutCommand(put)));
    // The end of the deposit, and of its credentials, in one write.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.table.client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: put },
              { Delete: { TableName: this.table.tableName, Key: keys.sealed(deposit.id) } },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code);
        if (codes[0] === 'ConditionalCheckFailed') return false;
        if (!codes.includes('TransactionConflict') || attempt >= MAX_CONFLICT_RETRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20 * attempt + Math.random() * 20));
      }
    }
  }
}

/** A new deposit and its idempotency record, written in one transaction. */
export class IdempotencyItems implements IdempotencyRecords {
  constructor(private readonly table: Table) {}

  async createOnce(deposit: Deposit) {
    const idempotency = keys.idempotency(deposit.ownerKey, deposit.idempotencyKey);
    // A concurrent create of the same key can cancel ours as a conflict: try again, and the
    // winner's record answers (the transaction's conditions keep it to one deposit per key).
    for (let attempt = 1; attempt <= MAX_CONFLICT_RETRIES; attempt += 1) {
      const outcome = await this.transact(deposit, idempotency);
      if (outcome === 'created') return { created: true as const };
      if (outcome === 'taken') {
        const record = await getItem<{ depositId: string }>(this.table, idempotency);
        return { created: false as const, depositId: record?.depositId };
      }
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt + Math.random() * 20));
    }
    throw new Error(`creating deposit ${deposit.id}: its transaction kept conflicting`);
  }

  private async transact(deposit: Deposit, idempotency: { pk: string; sk: string }) {
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
            // Its credentials, beside it: written once (the deposit's key above guards both).
            { Put: { TableName: tableName, Item: sealedItem(deposit) } },
          ],
        }),
      );
      return 'created' as const;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code);
      if (codes[0] === 'ConditionalCheckFailed') return 'taken' as const;
      if (codes.includes('TransactionConflict')) return 'conflict' as const;
      throw error;
    }
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
    const ownClaim = 'depositId = :deposit AND #state = :creating';
    if (claim.beneficiaryId === undefined) {
      return this.put(claim, {
        ConditionExpression: ownClaim,
        ExpressionAttributeValues: { ':deposit': claim.depositId, ':creating': 'creating' },
      });
    }
    // With its id: also the completion of a created beneficiary's record, by whoever looked it up.
    return this.put(claim, {
      ConditionExpression: `(${ownClaim}) OR (#state = :created AND attribute_not_exists(beneficiaryId))`,
      ExpressionAttributeValues: {
        ':deposit': claim.depositId,
        ':creating': 'creating',
        ':created': 'created',
      },
    });
  }

  async markUsed(ownerKey: string, walletAccountId: string): Promise<void> {
    await conditionally(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.beneficiary(ownerKey, walletAccountId),
          // Used again: kept another whole time to live.
          UpdateExpression: 'SET used = :true, expiresAt = :expires',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: {
            ':true': true,
            ':expires': Math.floor(Date.now() / 1000) + claimTtlSeconds,
          },
        }),
      ),
    );
  }

  async forget(ownerKey: string, walletAccountId: string, beneficiaryId?: string): Promise<void> {
    await conditionally(
      this.table.client.send(
        new DeleteCommand({
          TableName: this.table.tableName,
          Key: keys.beneficiary(ownerKey, walletAccountId),
          ...(beneficiaryId === undefined
            ? {
                ConditionExpression: '#state = :created AND attribute_not_exists(beneficiaryId)',
                ExpressionAttributeValues: { ':created': 'created' },
              }
            : {
                ConditionExpression: '#state = :created AND beneficiaryId = :beneficiary',
                ExpressionAttributeValues: { ':created': 'created', ':beneficiary': beneficiaryId },
              }),
          ExpressionAttributeNames: { '#state': 'state' },
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
          Item: {
            ...keys.beneficiary(claim.ownerKey, claim.walletAccountId),
            ...claim,
            expiresAt: Math.floor(claim.claimedAt / 1000) + claimTtlSeconds,
          },
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
          UpdateExpression: 'SET holder = :holder, #until = :until, expiresAt = :expires',
          ConditionExpression:
            'attribute_not_exists(holder) OR holder = :holder OR holder = :reclaimable OR #until < :now',
          ExpressionAttributeNames: { '#until': 'until' },
          ExpressionAttributeValues: {
            ':holder': holder,
            ':reclaimable': reclaimable ?? holder,
            ':until': until,
            ':now': now,
            ':expires': Math.ceil(until / 1000) + leaseTtlAfterUntilSeconds,
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
