/**
 * The sweeper's index (`byCheckAt`, eight shards) in DynamoDB Local, where the fakes cannot prove
 * it: a run pages through every shard from where each page ended, oldest first, and meets each due
 * deposit once, the deposits it defers on the way included. Its deposits are due far in the future,
 * so that the local stack's own sweeper (on the real clock) leaves them alone; and it defers only its
 * own, never the deposits of the other tests (which its pages meet too: they are due before).
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { IdempotencyItems } from '#shared/adapters/deposit-items';
import { DueDepositsIndex } from '#shared/adapters/deposits-indexes';
import { keys } from '#shared/adapters/deposits-table-items';
import { sweep } from '#shared/deposits/background/sweeper';
import type { Deposit } from '#shared/deposits/model/deposit';
import {
  type DueDeposit,
  type DueDeposits,
  type DuePosition,
  dueProjection,
} from '#shared/deposits/ports/records';
import { FakeQueues } from '../support/deposit-fakes.ts';
import { localDynamoDb } from '../support/local-dynamodb.ts';

const client = localDynamoDb();
const table = { client, tableName: inject('tableNames').deposits };
const index = new DueDepositsIndex(table);

/** `count` deposits in flight, due a look from `from` on, a few at each instant. */
async function dueFrom(from: number, count: number): Promise<Deposit[]> {
  const run = randomUUID().slice(0, 8);
  const deposits = Array.from({ length: count }, (_, n): Deposit => {
    const id = `dep_due_${run}_${n}`;
    return {
      id,
      ownerKey: `owner-${run}`,
      readerKey: 'reader',
      idempotencyKey: id,
      fingerprint: 'f',
      status: 'initialized',
      step: 'transfer',
      version: 1,
      amountMinor: 100,
      currency: 'AED',
      senderId: 'acc-1',
      walletAccountId: 'wallet-aed',
      stepCounters: { retries: 0 },
      history: [],
      createdAt: from,
      updatedAt: from,
      checkAt: from + Math.floor(n / 3),
    };
  });
  const idempotency = new IdempotencyItems(table);
  await Promise.all(deposits.map((deposit) => idempotency.createOnce(deposit)));
  return deposits;
}

describe('the index of deposits due a look', () => {
  it('pages through every shard, oldest first, each due deposit once, deferring each page as it goes', async () => {
    // prepare: 30 deposits due, spread over the shards by their ids
    const from = Date.UTC(2100, 0, 1) + Math.floor(Math.random() * 1e9);
    const ours = await dueFrom(from, 30);
    const ids = new Set(ours.map((deposit) => deposit.id));
    const now = from + 30;

    // act: pages of 4, ours in each deferred past `now` before the next is asked for
    const mine: DueDeposit[] = [];
    let after: DuePosition | undefined;
    let pages = 0;
    do {
      const page = await index.findDue(now, 4, after);
      for (const deposit of page.deposits.filter((found) => ids.has(found.id))) {
        // The index holds what re-driving takes, not a copy of the deposit.
        const projected: string[] = [...dueProjection, 'checkAt'];
        expect(Object.keys(deposit).filter((name) => !projected.includes(name))).toEqual([]);
        expect(deposit).toMatchObject({ step: 'transfer', status: 'initialized' });
        expect(deposit.version).toEqual(expect.any(Number));
        expect(await index.defer(deposit, now + 3_600_000)).toBe(true);
        mine.push(deposit);
      }
      after = page.last;
      pages += 1;
    } while (after !== undefined && pages < 10_000);

    // assess: each of ours once, oldest first
    expect(after).toBeUndefined();
    expect(mine.map((deposit) => deposit.id).sort()).toEqual([...ids].sort());
    const checkAts = mine.map((deposit) => deposit.checkAt ?? 0);
    expect(checkAts).toEqual([...checkAts].sort((a, b) => a - b));
  });

  it('defers a deposit once from one look, though the index still shows it due', async () => {
    // prepare: a deposit due, found by a look
    const from = Date.UTC(2100, 0, 1) + Math.floor(Math.random() * 1e9);
    const [ours] = await dueFrom(from, 1);
    const page = await index.findDue(from + 1, 100);
    const found = page.deposits.find((deposit) => deposit.id === ours?.id);

    // act: deferred; then the same look again (the next run, through an index not caught up)
    const first = found && (await index.defer(found, from + 3_600_000));
    const again = found && (await index.defer(found, from + 3_600_000));

    // assess: the second is refused, and the re-drive counted once
    expect([first, again]).toEqual([true, false]);
    const { Item } = await client.send(
      new GetCommand({ TableName: table.tableName, Key: keys.deposit(ours?.id ?? '') }),
    );
    expect(Item?.redrives).toBe(1);
  });

  it("the sweeper's run re-drives each one once, through pages smaller than a shard's share", async () => {
    // prepare
    const from = Date.UTC(2100, 0, 1) + Math.floor(Math.random() * 1e9);
    const ours = await dueFrom(from, 20);
    const queues = new FakeQueues([
      'resolve-bank',
      'ensure-beneficiary',
      'wait-cooldown',
      'transfer',
      'reconcile',
    ]);
    const ourIds = ours.map((deposit) => deposit.id);
    // The index's pages and positions as they are, with only our deposits in them.
    const ourPages: DueDeposits = {
      findDue: async (now, limit, after) => {
        const page = await index.findDue(now, limit, after);
        return { ...page, deposits: page.deposits.filter((deposit) => ourIds.includes(deposit.id)) };
      },
      defer: (deposit, checkAt) => index.defer(deposit, checkAt),
    };
    const ctx = { due: ourPages, queues, clock: { now: () => from + 20 }, settings: { stallAfterMs: 3_000 } };

    // act
    const { redriven } = await sweep(ctx, 3);

    // assess
    expect(redriven).toBe(20);
    expect(queues.sent.map((s) => s.message.depositId).sort()).toEqual([...ourIds].sort());
  });
});
