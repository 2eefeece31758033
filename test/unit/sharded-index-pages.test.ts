/**
 * The merged pages of a sharded index (`shared/adapters/sharded-index-pages.ts`) over an in-memory
 * index whose shards give an instant's items in an order of their own, as DynamoDB's indexes do (an
 * index orders by its sort key only: DynamoDB Local gave one instant's items in neither id order).
 * Every page is read to the end, each from the cursor the one before gave: each item once, in the one
 * order, and every page but the last full.
 */
import { describe, expect, it } from 'vitest';
import {
  type IndexPosition,
  mergedPage,
  newerFirst,
  type ShardQuery,
} from '#shared/adapters/sharded-index-pages';
import { cursorOf, positionOf } from '#shared/deposits/requests/read';

interface Item extends Record<string, unknown> {
  pk: string;
  createdAt: number;
  status: string;
  shard: string;
}

/** `count` items over `shards` shards, `perInstant` to a millisecond, their statuses in turn. */
function itemsOf(count: number, shards: number, perInstant: number): Item[] {
  return Array.from({ length: count }, (_, index) => ({
    // Ids whose order is not the order of their making.
    pk: `DEPOSIT#dep_${((index * 7919) % 1000).toString().padStart(4, '0')}`,
    createdAt: 1_000 + Math.floor(index / perInstant),
    status: index % 3 === 0 ? 'done' : 'failed',
    shard: `shard-${(index * 5) % shards}`,
  }));
}

const position = (item: Item): IndexPosition => ({
  depositId: item.pk.slice('DEPOSIT#'.length),
  createdAt: item.createdAt,
});

/**
 * One query of a shard as the index answers it: newest first, an instant's items in increasing id
 * (the one order puts them in decreasing id), from the position's instant on, `limit` items read
 * (the filter applied after them), the last one read named when more follow.
 */
function shardQuery(items: Item[], after: IndexPosition | undefined, status?: string): ShardQuery {
  return async ({ partition, limit, start }) => {
    const shard = items
      .filter((item) => item.shard === partition && (!after || item.createdAt <= after.createdAt))
      .sort((a, b) => b.createdAt - a.createdAt || (a.pk < b.pk ? -1 : 1));
    const from = start ? shard.findIndex((item) => item.pk === start.pk) + 1 : 0;
    const read = shard.slice(from, from + limit);
    const more = from + limit < shard.length;
    return {
      Items: read.filter((item) => status === undefined || item.status === status),
      ...(more ? { LastEvaluatedKey: read.at(-1) } : {}),
    };
  };
}

async function everyPage(items: Item[], shards: number, limit: number, status?: string) {
  const partitions = Array.from({ length: shards }, (_, shard) => `shard-${shard}`);
  const reading = { filtered: status !== undefined, filteredPage: 2, maxQueries: 2 };
  const pages: Item[][] = [];
  let after: IndexPosition | undefined;
  do {
    const page = await mergedPage(partitions, limit, after, shardQuery(items, after, status), reading);
    pages.push(page.items as Item[]);
    // Through the caller's cursor, as the APIs give it.
    after = page.last && positionOf(cursorOf(page.last));
  } while (after && pages.length < 100);
  return pages;
}

const inOrder = (items: Item[]) =>
  [...items].sort((a, b) => newerFirst(position(a), position(b))).map((item) => item.pk);

describe('a sharded index read page by page', () => {
  it.each([
    { count: 24, shards: 4, perInstant: 3, limit: 5 },
    { count: 30, shards: 2, perInstant: 4, limit: 3 },
    { count: 12, shards: 3, perInstant: 6, limit: 1 },
    { count: 40, shards: 8, perInstant: 2, limit: 7 },
  ])(
    'gives $count items, $perInstant to an instant over $shards shards, $limit a page: each once, in order, the pages full',
    async ({ count, shards, perInstant, limit }) => {
      const items = itemsOf(count, shards, perInstant);

      const pages = await everyPage(items, shards, limit);

      expect(pages.flat().map((item) => item.pk)).toEqual(inOrder(items));
      expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
    },
  );

  it('gives the item after an instant read to its end, where the shard ends', async () => {
    const items = itemsOf(4, 1, 3).map((item) => ({ ...item, createdAt: 2_000 - item.createdAt }));

    const pages = await everyPage(items, 1, 1);

    expect(pages.flat().map((item) => item.pk)).toEqual(inOrder(items));
  });

  it.each([
    { count: 30, shards: 3, perInstant: 3, limit: 2 },
    { count: 24, shards: 2, perInstant: 5, limit: 4 },
  ])(
    'gives the items of one status among $count, $perInstant to an instant, each once and in order, when a shard spends its queries',
    async ({ count, shards, perInstant, limit }) => {
      const items = itemsOf(count, shards, perInstant);

      const pages = await everyPage(items, shards, limit, 'done');

      expect(pages.flat().map((item) => item.pk)).toEqual(
        inOrder(items.filter((item) => item.status === 'done')),
      );
    },
  );
});
