/**
 * A deposit's own items in the deposits table: the deposit, its sealed credentials beside it, and its
 * idempotency key (each implements one port of `shared/deposits/ports.ts`; keys and items in
 * `deposits-table-items.ts`). The connection's items, its beneficiary claims and lease, are in
 * `deposits-table.ts`.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally } from '#shared/adapters/dynamodb';
import type { Deposit } from '#shared/deposits/model';
import type { DepositRecords, IdempotencyRecords } from '#shared/deposits/ports';
import {
  depositItem,
  fromItem,
  getItem,
  idempotencyTtlSeconds,
  isFinal,
  keys,
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
            ...(deposit.sealedCredentials
              ? [{ Put: { TableName: tableName, Item: sealedItem(deposit) } }]
              : []),
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
