/**
 * The deposits table's `byStatus` index: each deposit under its status bucket (`opsBucket`) and its
 * creation time, projecting its `step` besides the keys. The operator's list queries a bucket
 * newest first (within a creation range), filters by step on the index, and reads the page's
 * deposits by key. A deposit that left the bucket between the index's read and its own (the index
 * is eventually consistent) is left out of the page.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { statusBucket } from '#shared/operator/model';
import type { StatusDeposits, StatusPosition, StatusQuery } from '#shared/operator/ports';
import { depositsByKeys, positionOf } from './deposits-indexes.ts';
import { keys, type Table } from './deposits-table-items.ts';

export interface StatusIndexReading {
  /** Index items read per query when filtering by step (keys and the step: small). */
  filteredPage: number;
  /** Queries one list may make to fill a page at a rare step; past them it answers what it found and a cursor. */
  maxQueries: number;
}

export class StatusDepositsIndex implements StatusDeposits {
  constructor(
    private readonly table: Table,
    private readonly reading: StatusIndexReading = { filteredPage: 200, maxQueries: 5 },
  ) {}

  async page(query: StatusQuery) {
    const found: Record<string, unknown>[] = [];
    let start = query.after;
    let last: StatusPosition | undefined;
    for (let queries = 0; queries < this.reading.maxQueries; queries += 1) {
      const wanted = query.limit - found.length;
      const { Items = [], LastEvaluatedKey } = await this.table.client.send(
        new QueryCommand({
          TableName: this.table.tableName,
          IndexName: 'byStatus',
          ...this.condition(query),
          ScanIndexForward: false,
          // Without a step filter every item counts: read exactly what the page lacks.
          Limit: query.step ? this.reading.filteredPage : wanted,
          ...(start ? { ExclusiveStartKey: this.startKey(query, start) } : {}),
        }),
      );
      const taken = Items.slice(0, wanted);
      found.push(...taken);
      const cut = taken.length < Items.length;
      // More may follow from the last item taken (the page cut a query's answer) or the last looked at.
      const end = cut ? taken.at(-1) : LastEvaluatedKey;
      last = end ? positionOf(end) : undefined;
      if (!last || found.length >= query.limit) break;
      start = last;
    }
    const deposits = (await depositsByKeys(this.table, found)).filter(
      (deposit) =>
        statusBucket(deposit) === query.bucket && (query.step === undefined || deposit.step === query.step),
    );
    return { deposits, last };
  }

  private condition(query: StatusQuery) {
    const values: Record<string, unknown> = { ':bucket': query.bucket };
    let range = '';
    if (query.from !== undefined && query.to !== undefined) {
      range = ' AND createdAt BETWEEN :from AND :last';
      values[':from'] = query.from;
      values[':last'] = query.to - 1;
    } else if (query.from !== undefined) {
      range = ' AND createdAt >= :from';
      values[':from'] = query.from;
    } else if (query.to !== undefined) {
      range = ' AND createdAt < :to';
      values[':to'] = query.to;
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

  private startKey(query: StatusQuery, position: StatusPosition) {
    return { ...keys.deposit(position.depositId), opsBucket: query.bucket, createdAt: position.createdAt };
  }
}
