/**
 * The deposits table's items: the keys of each entity, the deposit item (with its place in the
 * sparse index and, once final, its TTL), and reading an item back.
 *
 * | Entity            | pk                                   | sk          | Notes                         |
 * |-------------------|--------------------------------------|-------------|-------------------------------|
 * | Deposit           | DEPOSIT#<id>                         | DEPOSIT     | conditional on `version`      |
 * | Idempotency key   | IDEMPOTENCY#<owner>#<key>            | IDEMPOTENCY | written with the deposit      |
 * | Beneficiary claim | BENEFICIARY#<owner>#<wallet account> | BENEFICIARY | one creator per connection    |
 * | Connection lease  | LEASE#<owner>                        | LEASE       | one provider call at a time   |
 * | Bank memory       | BANK#<owner>                         | BANK        | the bank's metadata, a while  |
 * | Shared wake-up    | WAKE#<owner>#<wallet account>        | WAKE        | a source's, deposits follow   |
 *
 * Index `byCheckAt`: `checkShard` (CHECK#0..7, present only while a deposit is in flight) and `checkAt`.
 * Index `byOwner`: `listedBy` (the owner's key, or `SOURCE#<owner>` for a source; on deposit items
 * only) and `createdAt`.
 * Index `byStatus`: `opsBucket` (the deposit's status bucket, on deposit items only) and `createdAt`,
 * projecting `step`: the operator's list.
 */
import { createHash } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Deposit } from '#shared/deposits/model';
import { statusBucket } from '#shared/operator/model';

export const CHECK_SHARDS = 8;
/** Tries of a create whose transaction a concurrent one cancelled. */
export const MAX_CONFLICT_RETRIES = 5;
export const idempotencyTtlSeconds = 30 * 86_400;
const depositTtlAfterEndSeconds = 400 * 86_400;
/** A lease means nothing past its `until`: its item is tidied away a day later. */
export const leaseTtlAfterUntilSeconds = 86_400;
/**
 * Our record of a connection's beneficiary goes after 400 days without a claim or a transfer
 * through it; the next deposit then finds the beneficiary in the bank's list again.
 */
export const claimTtlSeconds = 400 * 86_400;

export const keys = {
  deposit: (id: string) => ({ pk: `DEPOSIT#${id}`, sk: 'DEPOSIT' }),
  idempotency: (ownerKey: string, key: string) => ({
    pk: `IDEMPOTENCY#${ownerKey}#${key}`,
    sk: 'IDEMPOTENCY',
  }),
  beneficiary: (ownerKey: string, walletAccountId: string) => ({
    pk: `BENEFICIARY#${ownerKey}#${walletAccountId}`,
    sk: 'BENEFICIARY',
  }),
  lease: (ownerKey: string) => ({ pk: `LEASE#${ownerKey}`, sk: 'LEASE' }),
  bank: (ownerKey: string) => ({ pk: `BANK#${ownerKey}`, sk: 'BANK' }),
  wake: (ownerKey: string, walletAccountId: string) => ({
    pk: `WAKE#${ownerKey}#${walletAccountId}`,
    sk: 'WAKE',
  }),
};

function checkShard(depositId: string): string {
  const bucket = createHash('sha256').update(depositId).digest().readUInt8(0) % CHECK_SHARDS;
  return `CHECK#${bucket}`;
}

/** The owner index's partition of a connection's deposits, or of its payment sources. */
export function listedBy(ownerKey: string, purpose: Deposit['purpose']): string {
  return purpose === 'source' ? `SOURCE#${ownerKey}` : ownerKey;
}

export function depositItem(deposit: Deposit) {
  const final = deposit.status === 'done' || deposit.status === 'failed';
  return {
    ...keys.deposit(deposit.id),
    ...deposit,
    listedBy: listedBy(deposit.ownerKey, deposit.purpose),
    opsBucket: statusBucket(deposit),
    ...(deposit.checkAt === undefined ? {} : { checkShard: checkShard(deposit.id) }),
    // Finished deposits stay readable for a good while, then expire.
    ...(final ? { expiresAt: Math.floor(deposit.updatedAt / 1000) + depositTtlAfterEndSeconds } : {}),
  };
}

export function fromItem<T>(item: Record<string, unknown> | undefined): T | undefined {
  if (!item) return undefined;
  const {
    pk: _pk,
    sk: _sk,
    checkShard: _shard,
    expiresAt: _expires,
    listedBy: _owner,
    opsBucket: _bucket,
    ...record
  } = item;
  return record as T;
}

export interface Table {
  client: DynamoDBDocumentClient;
  tableName: string;
}

export async function getItem<T>(table: Table, Key: { pk: string; sk: string }): Promise<T | undefined> {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key, ConsistentRead: true }),
  );
  return fromItem<T>(Item);
}
