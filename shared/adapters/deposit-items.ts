/**
 * A deposit's own items in the deposits table: the deposit, its sealed credentials beside it, and its
 * idempotency key (each implements one port of `shared/deposits/ports/`; keys and items in
 * `deposits-table-items.ts`). The connection's items, its beneficiary claims and lease, are in
 * `deposits-table.ts`.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { conditionally } from '#shared/adapters/dynamodb';
import type { Deposit } from '#shared/deposits/model/deposit';
import type { DepositRecords, IdempotencyRecords } from '#shared/deposits/ports/records';
import { depositFromItem } from './deposit-record.ts';
import {
  clientReferenceTtlSeconds,
  depositItem,
  getItem,
  idempotencyTtlSeconds,
  isFinal,
  keys,
  MAX_CONFLICT_RETRIES,
  referenceScopeOf,
  sealedItem,
  type Table,
} from './deposits-table-items.ts';

/**
 * Writes `items` in one transaction whose items carry the conditions that matter: `written`, or
 * `{ refused }` with the index of the item whose condition failed. A concurrent write of the same
 * items can cancel it as a conflict: tried again, a little later each time, up to
 * `MAX_CONFLICT_RETRIES` times.
 */
async function transact(
  table: Table,
  items: NonNullable<TransactWriteCommandInput['TransactItems']>,
  what: string,
): Promise<'written' | { refused: number }> {
  for (let attempt = 1; attempt <= MAX_CONFLICT_RETRIES; attempt += 1) {
    try {
      await table.client.send(new TransactWriteCommand({ TransactItems: items }));
      return 'written';
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code);
      const refused = codes.indexOf('ConditionalCheckFailed');
      if (refused >= 0) return { refused };
      if (!codes.includes('TransactionConflict')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt + Math.random() * 20));
    }
  }
  throw new Error(`${what}: its transaction kept conflicting`);
}

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
    if (!this.options.withCredentials)
      return depositFromItem(await getItem<Record<string, unknown>>(this.table, keys.deposit(depositId)));
    const { pk } = keys.deposit(depositId);
    const { Items = [] } = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
      }),
    );
    const deposit = depositFromItem(Items.find((candidate) => candidate.sk === keys.deposit(depositId).sk));
    const sealed = Items.find((candidate) => candidate.sk === keys.sealed(depositId).sk)?.sealedCredentials;
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
    const ended = await transact(
      this.table,
      [{ Put: put }, { Delete: { TableName: this.table.tableName, Key: keys.sealed(deposit.id) } }],
      `ending deposit ${deposit.id}`,
    );
    return ended === 'written';
  }
}

/**
 * A new deposit and its idempotency record (and the record of its `clientReference`, when it has
 * one), written in one transaction: one deposit per key and connection, one per reference and
 * backend, whatever races.
 */
export class IdempotencyItems implements IdempotencyRecords {
  constructor(private readonly table: Table) {}

  async createOnce(deposit: Deposit) {
    const idempotency = keys.idempotency(deposit.ownerKey, deposit.idempotencyKey);
    const reference =
      deposit.clientReference === undefined
        ? undefined
        : keys.clientReference(referenceScopeOf(deposit), deposit.clientReference);
    const { tableName } = this.table;
    // A concurrent create of the same key (or reference) that cancels ours is tried again, and the
    // winner's record answers (the transaction's conditions keep it to one deposit per key).
    const outcome = await transact(
      this.table,
      [
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
        ...(reference
          ? [
              {
                Put: {
                  TableName: tableName,
                  Item: {
                    ...reference,
                    depositId: deposit.id,
                    expiresAt: Math.floor(deposit.createdAt / 1000) + clientReferenceTtlSeconds,
                  },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
            ]
          : []),
        {
          Put: {
            TableName: tableName,
            Item: depositItem(deposit),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        // Its credentials, beside it: written once (the deposit's key above guards both).
        ...(deposit.sealedCredentials ? [{ Put: { TableName: tableName, Item: sealedItem(deposit) } }] : []),
      ],
      `creating deposit ${deposit.id}`,
    );
    if (outcome === 'written') return { created: true as const };
    // The item whose condition failed says what was taken: the key (first), or the reference.
    const taken =
      reference && outcome.refused === 1 ? ('clientReference' as const) : ('idempotencyKey' as const);
    const record = await getItem<{ depositId: string }>(
      this.table,
      taken === 'clientReference' && reference ? reference : idempotency,
    );
    return { created: false as const, depositId: record?.depositId, taken };
  }
}
