/**
 * The deposits table's `byStatus` index: each deposit under its status bucket, in one of
 * `STATUS_SHARDS` shards (`opsBucket`: `done#7`), and its creation time, projecting its `step` besides
 * the keys. The operator's list queries every shard of a bucket newest first (within a creation
 * range, filtered by step on the index), merges them in one order (newest first, then by id), and
 * reads the page's deposits by key. A deposit that left the bucket between the index's read and its
 * own (the index is eventually consistent) is left out of the page.
 *
 * A page continues after a position in that order: each shard is read from it (its items created
 * at that instant and at or after its id in the order, seen already, skipped). A shard that stopped
 * early (its query bound, at a rare step) bounds the page: nothing older than where it stopped is
 * taken, and the next page starts there.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { statusBucket } from '#shared/operator/model';
import type { StatusDeposits, StatusQuery, StatusTimes } from '#shared/operator/ports';
import { depositsByKeys } from './deposits-indexes.ts';
import { STATUS_SHARDS, statusPartition, type Table } from './deposits-table-items.ts';
import { mergedPage } from './sharded-index-pages.ts';

export interface StatusIndexReading {
  /** Index items read per query when filtering by step (keys and the step: small). */
  filteredPage: number;
  /** Queries one list may make in a shard to fill a page at a rare step; past them the shard stops there. */
  maxQueries: number;
}

export class StatusDepositsIndex implements StatusDeposits, StatusTimes {
  constructor(
    private readonly table: Table,
    private readonly reading: StatusIndexReading = { filteredPage: 200, maxQueries: 5 },
  ) {}

  async page(query: StatusQuery) {
    const shards = Array.from({ length: STATUS_SHARDS }, (_, shard) => statusPartition(query.bucket, shard));
    const { items, last } = await mergedPage(
      shards,
      query.limit,
      query.after,
      ({ partition, limit, start }) =>
        this.table.client.send(
          new QueryCommand({
            TableName: this.table.tableName,
            IndexName: 'byStatus',
            ...this.condition(partition, query),
            ScanIndexForward: false,
            Limit: limit,
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        ),
      { ...this.reading, filtered: query.step !== undefined },
    );
    const deposits = (await depositsByKeys(this.table, items)).filter(
      (deposit) =>
        statusBucket(deposit) === query.bucket && (query.step === undefined || deposit.step === query.step),
    );
    return { deposits, last };
  }

  /**
   * The creation times of a bucket's deposits, newest first: each shard's, at most its share of `cap`
   * (the shards hold a bucket evenly), in at most `maxQueries` queries a shard; `capped` when a
   * shard held more.
   */
  async createdTimes(query: Omit<StatusQuery, 'limit' | 'after'>, cap: number) {
    const share = Math.ceil(cap / STATUS_SHARDS);
    const shards = Array.from({ length: STATUS_SHARDS }, (_, shard) => statusPartition(query.bucket, shard));
    const read = await Promise.all(
      shards.map(async (partition) => {
        const times: number[] = [];
        let start: Record<string, unknown> | undefined;
        for (let queries = 0; queries < this.reading.maxQueries * 2; queries += 1) {
          const condition = this.condition(partition, { ...query, limit: share });
          const { Items = [], LastEvaluatedKey } = await this.table.client.send(
            new QueryCommand({
              TableName: this.table.tableName,
              IndexName: 'byStatus',
              ...condition,
              ProjectionExpression: 'createdAt',
              ScanIndexForward: false,
              Limit: query.step ? this.reading.filteredPage : share + 1 - times.length,
              ...(start ? { ExclusiveStartKey: start } : {}),
            }),
          );
          times.push(...Items.map((item) => Number(item.createdAt)));
          if (times.length > share) return { times: times.slice(0, share), capped: true };
          if (!LastEvaluatedKey) return { times, capped: false };
          start = LastEvaluatedKey;
        }
        return { times, capped: true };
      }),
    );
    return {
      times: read.flatMap((shard) => shard.times).sort((a, b) => b - a),
      capped: read.some((shard) => shard.capped),
    };
  }

  private condition(partition: string, query: StatusQuery) {
    const values: Record<string, unknown> = { ':bucket': partition };
    // Creation times are whole milliseconds: before `to` is at most `to - 1`. From a position, at
    // most its instant (its ties seen already are skipped by the caller).
    const ends = [query.to === undefined ? undefined : query.to - 1, query.after?.createdAt].filter(
      (end): end is number => end !== undefined,
    );
    const upper = ends.length ? Math.min(...ends) : undefined;
    let range = '';
    if (query.from !== undefined && upper !== undefined) {
      range = ' AND createdAt BETWEEN :from AND :upper';
      values[':from'] = query.from;
      values[':upper'] = upper;
    } else if (query.from !== undefined) {
      range = ' AND createdAt >= :from';
      values[':from'] = query.from;
    } else if (upper !== undefined) {
      range = ' AND createdAt <= :upper';
      values[':upper'] = upper;
    }
    if (query.step) values[':step'] = query.step;
    return {
      KeyConditionExpression: `opsBucket = :bucket${range}`,
      ...(query.step
        ? { FilterExpression: '#step = :step', ExpressionAttributeNames: { '#step': 'step' } }
        : {}),
      ExpressionAttributeValues: values,
    };
  }
}
