/**
 * The `byStatus` index's adapter against DynamoDB Local (the local stack's deposits table): the
 * deposit item carries its bucket and the index projects its step; a page at a step fills across
 * several queries and ends where its last deposit is, so the next page takes the rest, each once;
 * a query budget spent answers what it found and a cursor at the end of the instant it stopped in; a deposit that left the bucket after
 * the index was read is left out; deposits of many shards, several created in the same
 * millisecond, page in one order, each once. Deposits here are created far in the past (their own
 * range) and without a check time, so no other test and no sweeper sees them.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { StatusDepositsIndex } from '#shared/adapters/deposits-status-index';
import { depositItem, statusShardOf } from '#shared/adapters/deposits-table-items';
import type { Deposit, DepositStep } from '#shared/deposits/model/deposit';
import type { StatusPosition, StatusQuery } from '#shared/operator/ports';
import { localDynamoDb } from '../support/local-dynamodb.ts';

const client = localDynamoDb({ marshallOptions: { removeUndefinedValues: true } });
const table = { client, tableName: inject('tableNames').deposits };

/** A range of creation times of this run alone, in 2001. */
const start = Date.UTC(2001, 0, 1) + Math.floor(Math.random() * 1e9);
const range = { from: start, to: start + 1_000 };
const steps: DepositStep[] = [
  'transfer',
  'resolve-bank',
  'resolve-bank',
  'transfer',
  'resolve-bank',
  'transfer',
  'transfer',
];
/** Ids of one `byStatus` shard, so that a shard's query budget shows in a page. */
function idsOfOneShard(count: number): string[] {
  const ids: string[] = [];
  const shard = statusShardOf(`dep_index_${start}`);
  while (ids.length < count) {
    const id = `dep_index_${randomUUID()}`;
    if (statusShardOf(id) === shard) ids.push(id);
  }
  return ids;
}
const oneShard = idsOfOneShard(steps.length);

/** Oldest first, all in one shard. */
const made: Deposit[] = steps.map((step, index) => ({
  id: oneShard[index] ?? '',
  ownerKey: 'owner',
  readerKey: 'reader',
  idempotencyKey: randomUUID(),
  fingerprint: 'f',
  status: 'initialized',
  step,
  version: 0,
  amountMinor: 1_000,
  currency: 'AED',
  senderId: 'acc',
  walletAccountId: 'wallet-aed',
  stepCounters: { retries: 0 },
  history: [],
  createdAt: start + index * 10,
  updatedAt: start + index * 10,
}));
const put = (deposit: Deposit) =>
  client.send(new PutCommand({ TableName: inject('tableNames').deposits, Item: depositItem(deposit) }));

beforeAll(async () => {
  for (const deposit of made) await put(deposit);
});

/** Every page of a query, by the position each answers. */
async function pages(index: StatusDepositsIndex, query: Omit<StatusQuery, 'after'>) {
  const all: string[][] = [];
  let after: StatusPosition | undefined;
  do {
    const page = await index.page({ ...query, after });
    all.push(page.deposits.map((deposit) => deposit.id));
    after = page.last;
  } while (after && all.length < 20);
  return all;
}

const newestFirst = (deposits: Deposit[]) => deposits.map((deposit) => deposit.id).reverse();

describe('the byStatus index', () => {
  it('pages through a bucket in a range, newest first, each deposit once', async () => {
    const index = new StatusDepositsIndex(table);
    const all = await pages(index, { bucket: 'initialized', ...range, limit: 3 });

    expect(all.flat()).toEqual(newestFirst(made));
    expect(all.slice(0, 2).map((page) => page.length)).toEqual([3, 3]);
  });

  it('fills a page at a step across queries, and the next page starts after its last deposit', async () => {
    // Two index items per query: a page of two transfers takes several.
    const index = new StatusDepositsIndex(table, { filteredPage: 2, maxQueries: 10 });
    const all = await pages(index, { bucket: 'initialized', step: 'transfer', ...range, limit: 2 });

    expect(all.flat()).toEqual(newestFirst(made.filter((deposit) => deposit.step === 'transfer')));
    expect(all[0]).toHaveLength(2);
  });

  it('answers what it found and where it stopped when its query budget is spent', async () => {
    const index = new StatusDepositsIndex(table, { filteredPage: 1, maxQueries: 2 });
    const query = { bucket: 'initialized' as const, step: 'resolve-bank' as const, ...range, limit: 5 };
    const first = await index.page(query);
    const second = await index.page({ ...query, after: first.last });

    // Newest first: transfer, transfer (the first page's two queries find none), the budget spent
    // at the second, whose instant is then read to its end (the next item is older): the page stops
    // at the end of that instant. The next page reads from the instant before: resolve-bank (kept),
    // transfer, the budget spent again; the third, resolve-bank twice; the fourth, the oldest (a transfer).
    const endOf = (deposit: Deposit | undefined) => ({
      createdAt: Number(deposit?.createdAt) - 1,
      depositId: '\uffff',
    });
    expect(first.deposits).toEqual([]);
    expect(first.last).toEqual(endOf(made[5]));
    expect(second.deposits.map((deposit) => deposit.id)).toEqual([made[4]?.id]);
    expect(second.last).toEqual(endOf(made[3]));
    const third = await index.page({ ...query, after: second.last });
    expect(third.deposits.map((deposit) => deposit.id)).toEqual([made[2]?.id, made[1]?.id]);
    // A query that reads its limit names the last item it read, even the shard's last.
    expect(third.last).toEqual(endOf(made[1]));
    const fourth = await index.page({ ...query, after: third.last });
    expect(fourth).toEqual({ deposits: [], last: undefined });
  });

  it('merges the shards: deposits of many shards, some created in the same millisecond, page newest first then by id, each once', async () => {
    // prepare: 12 deposits of random ids (so of many shards), in pairs created at the same instant
    const spread = { from: start + 5_000, to: start + 6_000 };
    const many = Array.from({ length: 12 }, (_, index) => ({
      ...(made[0] as Deposit),
      id: `dep_index_${randomUUID()}`,
      step: 'transfer' as const,
      createdAt: spread.from + Math.floor(index / 2),
    }));
    for (const deposit of many) await put(deposit);
    const index = new StatusDepositsIndex(table);

    // act
    const all = await pages(index, { bucket: 'initialized', ...spread, limit: 5 });

    // assess
    const order = [...many]
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
      .map((deposit) => deposit.id);
    expect(new Set(many.map((deposit) => statusShardOf(deposit.id))).size).toBeGreaterThan(1);
    expect(all.flat()).toEqual(order);
    expect(all.map((page) => page.length)).toEqual([5, 5, 2]);
  });

  it('leaves out a deposit that moved to another bucket after the index was read', async () => {
    const [oldest] = made;
    if (!oldest) throw new Error('no deposit');
    await put({
      ...oldest,
      status: 'failed',
      step: 'completed',
      version: 1,
      failure: { type: 'TRANSFER_OUTCOME_UNKNOWN', msg: 'x' },
    });
    const index = new StatusDepositsIndex(table);

    const initialized = await index.page({ bucket: 'initialized', ...range, limit: 10 });
    const unknown = await index.page({ bucket: 'outcome_unknown', ...range, limit: 10 });

    expect(initialized.deposits.map((deposit) => deposit.id)).not.toContain(oldest.id);
    expect(unknown.deposits.map((deposit) => deposit.id)).toEqual([oldest.id]);
    await put(oldest);
  });
});
