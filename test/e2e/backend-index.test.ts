/**
 * The `byBackend` index's adapter against DynamoDB Local (the local stack's deposits table): one
 * backend's deposits spread over the index's shards (`BACKEND_SHARDS`), several created in the same
 * millisecond, page newest first then by id, each once; a page of one status fills across queries
 * of every shard; the backend's sources are a list apart; and an item a release before the shards
 * wrote (the backend's partition alone) is in the list, once. Each test's backend is its own, and
 * the deposits have no check time, so no other test and no sweeper sees them.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { BackendDepositsIndex } from '#shared/adapters/deposits-indexes';
import { BACKEND_SHARDS, depositItem, listedBy } from '#shared/adapters/deposits-table-items';
import type { Deposit, DepositStatus } from '#shared/deposits/model/deposit';
import type { BackendListFilter, ListPosition } from '#shared/deposits/ports/records';
import { localDynamoDb } from '../support/local-dynamodb.ts';

const client = localDynamoDb({ marshallOptions: { removeUndefinedValues: true } });
const table = { client, tableName: inject('tableNames').deposits };

/** `count` deposits of a new backend, oldest first, three to a millisecond, their statuses in turn. */
function depositsOf(backendKey: string, count: number, purpose?: 'source'): Deposit[] {
  const start = Date.UTC(2002, 0, 1) + Math.floor(Math.random() * 1e9);
  const statuses: DepositStatus[] = ['done', 'initialized', 'failed', 'done'];
  return Array.from({ length: count }, (_, index) => ({
    id: `${purpose === 'source' ? 'src' : 'dep'}_backend_${randomUUID()}`,
    ...(purpose ? { purpose } : {}),
    ownerKey: `owner-${index % 3}`,
    readerKey: 'reader',
    backendKey,
    idempotencyKey: randomUUID(),
    fingerprint: 'f',
    status: statuses[index % statuses.length] ?? 'done',
    step: 'completed',
    version: 1,
    amountMinor: 1_000,
    currency: 'AED',
    senderId: 'acc',
    walletAccountId: 'wallet-aed',
    stepCounters: { retries: 0 },
    history: [],
    createdAt: start + Math.floor(index / 3),
    updatedAt: start + Math.floor(index / 3),
  }));
}

const put = (item: Record<string, unknown>) =>
  client.send(new PutCommand({ TableName: inject('tableNames').deposits, Item: item }));

/** Newest first, then by id: the lists' order. */
const newestFirst = (deposits: Deposit[]) =>
  [...deposits]
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((deposit) => deposit.id);

/** Every page of a backend's list, by the position each answers. */
async function pages(
  index: BackendDepositsIndex,
  backendKey: string,
  limit: number,
  filter?: BackendListFilter,
) {
  const all: string[][] = [];
  let after: ListPosition | undefined;
  do {
    const page = await index.page(backendKey, limit, after, filter);
    all.push(page.deposits.map((deposit) => deposit.id));
    after = page.last;
  } while (after && all.length < 40);
  return all;
}

describe('the byBackend index', () => {
  it('spreads one backend over its shards, and pages through them newest first then by id, each once', async () => {
    const backendKey = `backend-${randomUUID()}`;
    const made = depositsOf(backendKey, 24);
    await Promise.all(made.map((deposit) => put(depositItem(deposit))));

    const all = await pages(new BackendDepositsIndex(table), backendKey, 5);

    const partitions = new Set(made.map((deposit) => depositItem(deposit).backendListedBy));
    expect(partitions.size).toBeGreaterThan(BACKEND_SHARDS / 2);
    expect(all.flat()).toEqual(newestFirst(made));
    expect(all.slice(0, 4).map((page) => page.length)).toEqual([5, 5, 5, 5]);
  });

  it('lists one status across the shards, filtered in the index, each once', async () => {
    const backendKey = `backend-${randomUUID()}`;
    const made = depositsOf(backendKey, 16);
    await Promise.all(made.map((deposit) => put(depositItem(deposit))));

    // Two index items a query: a page of done deposits takes several queries of each shard.
    const index = new BackendDepositsIndex(table, { filteredPage: 2, maxQueries: 10 });
    const all = await pages(index, backendKey, 3, { status: 'done' });

    expect(all.flat()).toEqual(newestFirst(made.filter((deposit) => deposit.status === 'done')));
  });

  it("keeps a backend's payment sources a list apart", async () => {
    const backendKey = `backend-${randomUUID()}`;
    const deposits = depositsOf(backendKey, 4);
    const sources = depositsOf(backendKey, 3, 'source');
    await Promise.all([...deposits, ...sources].map((deposit) => put(depositItem(deposit))));
    const index = new BackendDepositsIndex(table);

    expect((await pages(index, backendKey, 10)).flat()).toEqual(newestFirst(deposits));
    expect((await pages(index, backendKey, 10, { purpose: 'source' })).flat()).toEqual(newestFirst(sources));
  });

  it('lists an item the release before the shards wrote (the backend partition alone), once, in its place', async () => {
    const backendKey = `backend-${randomUUID()}`;
    const made = depositsOf(backendKey, 9);
    const [previous, ...current] = made;
    await Promise.all(current.map((deposit) => put(depositItem(deposit))));
    if (!previous) throw new Error('no deposit made');
    await put({ ...depositItem(previous), backendListedBy: listedBy(backendKey, undefined) });

    const all = await pages(new BackendDepositsIndex(table), backendKey, 4);

    expect(all.flat()).toEqual(newestFirst(made));
  });
});
