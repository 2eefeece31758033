/**
 * The deposits table's indexes: the sweeper's sparse index of the deposits still in flight, by the
 * time they are due a look (`byCheckAt`), the keys of a connection's deposits, newest first, for
 * the caller's list (`byOwner`), and the keys and status of a backend's deposits, newest first, for
 * the list of a backend that reads by its own identity (`byBackend`).
 */
import { TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally } from '#shared/adapters/dynamodb';
import type { Deposit } from '#shared/deposits/model/deposit';
import type {
  BackendDeposits,
  BackendListFilter,
  DueDeposit,
  DueDeposits,
  DuePosition,
  ListPosition,
  OwnerDeposits,
} from '#shared/deposits/ports/records';
import { depositFromItem } from './deposit-record.ts';
import {
  BACKEND_SHARDS,
  backendPartition,
  CHECK_SHARDS,
  fromItem,
  keys,
  listedBy,
  type Table,
} from './deposits-table-items.ts';
import { mergedPage, positionOf } from './sharded-index-pages.ts';

/**
 * Where each shard of `byCheckAt` stands in a run: the key its next query starts after (its
 * ExclusiveStartKey: the table's keys and the index's), `null` before its first; a shard gone
 * through is left out. The sweeper gets it as an opaque `DuePosition` (JSON).
 */
type ShardPositions = Record<string, Record<string, unknown> | null>;

/** The sparse index of deposits in flight, by the time they are due a look. */
export class DueDepositsIndex implements DueDeposits {
  constructor(private readonly table: Table) {}

  /**
   * A page of every shard, each after where it stood, merged oldest first: the first `limit` are
   * the page, and each shard moves on past those of its own it gave (an index that still shows a
   * deposit deferred since never gives it again in this run).
   */
  async findDue(now: number, limit: number, after?: DuePosition) {
    const positions: ShardPositions =
      after === undefined
        ? Object.fromEntries(Array.from({ length: CHECK_SHARDS }, (_, shard) => [`CHECK#${shard}`, null]))
        : (JSON.parse(after) as ShardPositions);
    const pages = await Promise.all(
      Object.entries(positions).map(async ([shard, start]) => {
        const { Items, LastEvaluatedKey } = await this.table.client.send(
          new QueryCommand({
            TableName: this.table.tableName,
            IndexName: 'byCheckAt',
            KeyConditionExpression: 'checkShard = :shard AND checkAt <= :now',
            ExpressionAttributeValues: { ':shard': shard, ':now': now },
            Limit: limit,
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        return { shard, items: Items ?? [], more: LastEvaluatedKey !== undefined };
      }),
    );
    const page = pages
      .flatMap(({ shard, items }) => items.map((item) => ({ shard, item, checkAt: Number(item.checkAt) })))
      .sort((a, b) => a.checkAt - b.checkAt)
      .slice(0, limit);
    const next: ShardPositions = {};
    for (const { shard, items, more } of pages) {
      const taken = page.filter((entry) => entry.shard === shard);
      const lastTaken = taken.at(-1)?.item;
      // Gone through: it gave all it had, and every one of them is in the page.
      if (!more && taken.length === items.length) continue;
      next[shard] = lastTaken ? indexKey(lastTaken) : (positions[shard] ?? null);
    }
    const deposits = page
      .map(({ item }) => fromItem<DueDeposit>(item))
      .filter((deposit): deposit is DueDeposit => deposit !== undefined);
    return { deposits, last: Object.keys(next).length > 0 ? JSON.stringify(next) : undefined };
  }

  /**
   * False also when a transaction is writing the deposit meanwhile (DynamoDB refuses the update as a
   * TransactionConflict): a transition under way, such as the one that ends it. The deposit moves on
   * with it, or, if that transaction failed, is still due at its check time for the next run.
   */
  async defer(deposit: DueDeposit, checkAt: number): Promise<boolean> {
    const seen = deposit.redrives ?? 0;
    const update = new UpdateCommand({
      TableName: this.table.tableName,
      Key: keys.deposit(deposit.id),
      // Not a new version: its event (the outbox) was relayed from the version's own write, and
      // leaving it here would have the stream bring it again with every defer.
      UpdateExpression: 'SET checkAt = :checkAt, redrives = :redrives REMOVE event',
      // At the version and the count of re-drives the look found: not deferred again since.
      ConditionExpression: `version = :version AND ${seen === 0 ? '(attribute_not_exists(redrives) OR redrives = :seen)' : 'redrives = :seen'}`,
      ExpressionAttributeValues: {
        ':checkAt': checkAt,
        ':redrives': seen + 1,
        ':seen': seen,
        ':version': deposit.version,
      },
    });
    try {
      return await conditionally(this.table.client.send(update));
    } catch (error) {
      if (error instanceof TransactionConflictException) return false;
      throw error;
    }
  }
}

/** The index of a connection's deposits, newest first. */
export class OwnerDepositsIndex implements OwnerDeposits {
  constructor(private readonly table: Table) {}

  async page(ownerKey: string, limit: number, after?: ListPosition, purpose?: 'source') {
    const partition = listedBy(ownerKey, purpose);
    const { Items, LastEvaluatedKey } = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.tableName,
        IndexName: 'byOwner',
        KeyConditionExpression: 'listedBy = :owner',
        ExpressionAttributeValues: { ':owner': partition },
        ScanIndexForward: false,
        Limit: limit,
        ...(after
          ? {
              ExclusiveStartKey: {
                ...keys.deposit(after.depositId),
                listedBy: partition,
                createdAt: after.createdAt,
              },
            }
          : {}),
      }),
    );
    // The index holds keys only: the page's deposits are read by key, in the index's order.
    const deposits = await depositsByKeys(this.table, Items ?? []);
    const lastKey = Items?.at(-1);
    const last = LastEvaluatedKey && lastKey ? positionOf(lastKey) : undefined;
    return { deposits, last };
  }
}

/**
 * The index of a backend's deposits (its sources apart), newest first, whatever their connection, in
 * `BACKEND_SHARDS` shards (one backend may create a thousand a second; `sharded-index-pages.ts`
 * merges them). It projects the status, so a list of one status is filtered in the index, before any
 * deposit is read. The items a release before the shards wrote (the backend's partition without a
 * shard) are read as one more shard, for one release: any write of such a deposit moves it into its
 * shard.
 */
export class BackendDepositsIndex implements BackendDeposits {
  constructor(
    private readonly table: Table,
    private readonly reading = { filteredPage: 200, maxQueries: 5 },
  ) {}

  async page(backendKey: string, limit: number, after?: ListPosition, filter: BackendListFilter = {}) {
    const listed = listedBy(backendKey, filter.purpose);
    const shards = Array.from({ length: BACKEND_SHARDS }, (_, shard) => backendPartition(listed, shard));
    const { items, last } = await mergedPage(
      [...shards, listed],
      limit,
      after,
      ({ partition, limit: queryLimit, start }) =>
        this.table.client.send(
          new QueryCommand({
            TableName: this.table.tableName,
            IndexName: 'byBackend',
            ...backendCondition(partition, after, filter.status),
            ScanIndexForward: false,
            Limit: queryLimit,
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        ),
      { ...this.reading, filtered: filter.status !== undefined },
    );
    return { deposits: await depositsByKeys(this.table, items), last };
  }
}

/** A shard of a backend's list: from the position's instant on (its ties seen already skipped), of one status. */
function backendCondition(partition: string, after: ListPosition | undefined, status: string | undefined) {
  return {
    KeyConditionExpression: `backendListedBy = :backend${after ? ' AND createdAt <= :upper' : ''}`,
    ...(status === undefined
      ? {}
      : { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } }),
    ExpressionAttributeValues: {
      ':backend': partition,
      ...(after ? { ':upper': after.createdAt } : {}),
      ...(status === undefined ? {} : { ':status': status }),
    },
  };
}

/** The key of an item of `byCheckAt` a query starts after: the table's keys and the index's. */
function indexKey(item: Record<string, unknown>): Record<string, unknown> {
  return { pk: item.pk, sk: item.sk, checkShard: item.checkShard, checkAt: item.checkAt };
}

/**
 * The deposits of these index items (their table keys), read by key in batches, in the items' order;
 * one gone meanwhile (its TTL) is left out.
 */
export async function depositsByKeys(table: Table, items: Record<string, unknown>[]): Promise<Deposit[]> {
  const keyed = items.map((item) => ({ pk: String(item.pk), sk: String(item.sk) }));
  const byKey = new Map<string, Deposit>();
  // BatchGetItem takes at most 100 keys; a page is never larger, but a caller may be.
  for (let start = 0; start < keyed.length; start += 100) {
    let wanted: { pk: string; sk: string }[] = keyed.slice(start, start + 100);
    while (wanted.length > 0) {
      const { Responses, UnprocessedKeys } = await table.client.send(
        new BatchGetCommand({ RequestItems: { [table.tableName]: { Keys: wanted, ConsistentRead: true } } }),
      );
      for (const item of Responses?.[table.tableName] ?? []) {
        const deposit = depositFromItem(item);
        if (deposit) byKey.set(String(item.pk), deposit);
      }
      wanted = (UnprocessedKeys?.[table.tableName]?.Keys ?? []) as { pk: string; sk: string }[];
    }
  }
  return keyed.map((key) => byKey.get(key.pk)).filter((deposit): deposit is Deposit => deposit !== undefined);
}
