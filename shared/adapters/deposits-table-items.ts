/**
 * The deposits table's items: the keys of each entity, the deposit item (with its place in the
 * sparse index and, once final, its TTL), and reading an item back.
 *
 * The entities, their keys and access patterns: `entities` below (docs/design.md shows it).
 *
 * Index `byCheckAt`: `checkShard` (CHECK#0..31, present only while a deposit is in flight) and `checkAt`.
 * Index `byOwner`: `listedBy` (the owner's key, or `SOURCE#<owner>` for a source; on deposit items
 * only) and `createdAt`.
 * Index `byBackend`: `backendListedBy` (the creating backend's key, or `SOURCE#<backend>` for a
 * source, then `#<shard>`, 0..7; on deposit items with a backend only) and `createdAt`, projecting
 * `status`.
 * Index `byStatus`: `opsBucket` (the deposit's status bucket in its shard, `done#7`, on deposit items
 * only) and `createdAt`,
 * projecting `step`: the operator's list.
 */
import { createHash } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Deposit } from '#shared/deposits/model/deposit';
import { statusBucket } from '#shared/operator/model';
import { dataKeyOf } from './credential-vault.ts';

/**
 * The shards of the sweeper's index (`byCheckAt`), of the operator's (`byStatus`) and of a backend's
 * list (`byBackend`): every write of a deposit in flight writes the first, every change of its status
 * or step the second, every change of its status the third, so that at 1,000 deposits a second (of
 * one backend, for the third) no index partition takes more than half of DynamoDB's 1,000 writes a
 * second (`test/unit/key-model.test.ts`). A reader queries every shard and merges.
 */
export const CHECK_SHARDS = 32;
export const STATUS_SHARDS = 32;
export const BACKEND_SHARDS = 8;
/** Tries of a create whose transaction a concurrent one cancelled. */
export const MAX_CONFLICT_RETRIES = 5;
export const idempotencyTtlSeconds = 30 * 86_400;
/**
 * A `clientReference` stays its deposit's for 400 days after the create: as long as a finished
 * deposit is kept, give or take the days it ran.
 */
export const clientReferenceTtlSeconds = 400 * 86_400;
const depositTtlAfterEndSeconds = 400 * 86_400;
/**
 * Sealed credentials expire a week after their deposit's create: a backstop to their deletion by the
 * write that ends the deposit, well beyond the two days the longest deposit takes with the defaults
 * (a day's cool-down, some five hours of reads of a transfer's outcome, the questions and retries;
 * docs/deploying.md). A deposit still running then fails at its next step, its credentials gone.
 */
export const sealedTtlSeconds = 7 * 86_400;
/** A lease means nothing past its `until`: its item is tidied away a day later. */
export const leaseTtlAfterUntilSeconds = 86_400;
/**
 * Our record of a connection's beneficiary goes after 400 days without a claim or a transfer
 * through it; the next deposit then finds the beneficiary in the bank's list again.
 */
export const claimTtlSeconds = 400 * 86_400;
/** Remembered bank metadata is tidied away a day after it stops being fresh. */
export const bankTtlAfterUntilSeconds = 86_400;
/** A shared wake-up is tidied away a day after its instant, whether or not it was taken. */
export const wakeTtlAfterInstantSeconds = 86_400;
/** A webhook delivery's record is kept 30 days after its last try or resend: what operators look back on. */
export const deliveryTtlSeconds = 30 * 86_400;

const days = (seconds: number) => (seconds === 86_400 ? '1 day' : `${seconds / 86_400} days`);

export const keys = {
  deposit: (id: string) => ({ pk: `DEPOSIT#${id}`, sk: 'DEPOSIT' }),
  sealed: (id: string) => ({ pk: `DEPOSIT#${id}`, sk: 'SEALED' }),
  idempotency: (ownerKey: string, key: string) => ({
    pk: `IDEMPOTENCY#${ownerKey}#${key}`,
    sk: 'IDEMPOTENCY',
  }),
  clientReference: (scope: string, reference: string) => ({
    pk: `CLIENTREF#${scope}#${reference}`,
    sk: 'CLIENTREF',
  }),
  beneficiary: (ownerKey: string, walletAccountId: string) => ({
    pk: `BENEFICIARY#${ownerKey}#${walletAccountId}`,
    sk: 'BENEFICIARY',
  }),
  lease: (ownerKey: string) => ({ pk: `LEASE#${ownerKey}`, sk: 'LEASE' }),
  bank: (ownerKey: string, readerKey: string) => ({ pk: `BANK#${ownerKey}#${readerKey}`, sk: 'BANK' }),
  wake: (ownerKey: string, walletAccountId: string) => ({
    pk: `WAKE#${ownerKey}#${walletAccountId}`,
    sk: 'WAKE',
  }),
  delivery: (depositId: string, eventId: string) => ({ pk: `DELIVERY#${depositId}`, sk: `EVENT#${eventId}` }),
};

/** What each entity is for, as docs/design.md shows it: its keys are `keys`' own, for these arguments. */
export const entities = {
  deposit: {
    name: 'Deposit',
    args: ['<id>'],
    access: 'Get by id (consistent); put conditional on `version` (every transition)',
    ttl: `${days(depositTtlAfterEndSeconds)} after it ends`,
  },
  sealed: {
    name: 'Sealed credentials',
    args: ['<id>'],
    access:
      "Put with the new deposit (its create's transaction), naming the data key that sealed it (`dataKey`); read with the deposit in one Query of its partition by the steps that open credentials; deleted in the transaction of the write that ends the deposit. In no index, and the outbox's stream filter leaves it out (it has no event)",
    ttl: `${days(sealedTtlSeconds)} after the create, a backstop: it goes with the write that ends its deposit`,
  },
  idempotency: {
    name: 'Idempotency key',
    args: ['<owner>', '<key>'],
    access: 'Put with the new deposit in one transaction, only if absent; get when a repeat finds it taken',
    ttl: days(idempotencyTtlSeconds),
  },
  clientReference: {
    name: 'Client reference',
    args: ['<backend>', '<clientReference>'],
    access:
      "Put with the new deposit in one transaction, only if absent (one deposit per reference and backend; `<backend>` is the connection's `<owner>` for a deposit created without a backend identity); get when a create finds it taken, whose answer is that deposit",
    ttl: `${days(clientReferenceTtlSeconds)} after the create`,
  },
  beneficiary: {
    name: 'Beneficiary claim',
    args: ['<owner>', '<wallet account>'],
    access:
      'Get; conditional put (claim if free or stale, refresh or complete only by its holder, with what fitted the wallet before its creation at a bank that masks); delete by its holder; mark used',
    ttl: `${days(claimTtlSeconds)} after its claim or its last transfer`,
  },
  lease: {
    name: 'Connection lease',
    args: ['<owner>'],
    access:
      "Conditional update: take if free, expired, ours or the deposit's own lease (a question, a transfer carried out), ending the taker's wait; release only by its holder, which reads who waits (`wait_<deposit>`: a deposit's step and version, recorded only while another holds it); a waiter taken off by one freer to be woken",
    ttl: `${days(leaseTtlAfterUntilSeconds)} after its \`until\` (it means nothing past it)`,
  },
  bank: {
    name: 'Bank memory',
    args: ['<owner>', '<reader>'],
    access:
      'Get (fresh while `until` is ahead); put after each metadata answer; delete after a refusal that contradicts it',
    ttl: `${days(bankTtlAfterUntilSeconds)} after \`until\``,
  },
  wake: {
    name: 'Shared wake-up',
    args: ['<owner>', '<wallet account>'],
    access:
      "Put by the payment source that arms it (its instant, its schedule); conditional update by a deposit that follows it while its instant is ahead; delete by whoever takes its followers (the source when ready or ended, the sweeper's backstop)",
    ttl: `${days(wakeTtlAfterInstantSeconds)} after its instant`,
  },
  delivery: {
    name: 'Webhook delivery',
    args: ['<id>', '<event id>'],
    access:
      "Update by the notifier on each try of the event's delivery (the event itself as `payload`, its tries, its state), made by the first; a deposit's read in one Query of its partition (the operator's deliveries); get and update by an operator's resend. Not in the deposit's partition, so no writer of deposits reaches it, and in no index; the outbox's stream filter leaves it out (it has no `event`)",
    ttl: `${days(deliveryTtlSeconds)} after its last try or resend`,
  },
} satisfies Record<keyof typeof keys, { name: string; args: string[]; access: string; ttl: string }>;

/** Whose references a deposit's `clientReference` is unique among: its backend's, else its connection's. */
export function referenceScopeOf(deposit: Pick<Deposit, 'backendKey' | 'ownerKey'>): string {
  return deposit.backendKey ?? deposit.ownerKey;
}

/** A deposit's shard among `shards`, from its id: spread evenly, the same for every write of it. */
function shardOf(depositId: string, shards: number): number {
  return createHash('sha256').update(depositId).digest().readUInt16BE(0) % shards;
}

function checkShard(depositId: string): string {
  return `CHECK#${shardOf(depositId, CHECK_SHARDS)}`;
}

/** The shard of `byStatus` a deposit is listed in. */
export function statusShardOf(depositId: string): number {
  return shardOf(depositId, STATUS_SHARDS);
}

/** The `byStatus` partition of a deposit: its status bucket, in one of `STATUS_SHARDS` shards. */
export function statusPartition(bucket: string, shard: number): string {
  return `${bucket}#${shard}`;
}

/** The owner (or backend) index's partition of a connection's (a backend's) deposits, or of its payment sources. */
export function listedBy(ownerKey: string, purpose: Deposit['purpose']): string {
  return purpose === 'source' ? `SOURCE#${ownerKey}` : ownerKey;
}

/** The `byBackend` partition of a backend's deposits (or sources, `listedBy`) in one of its shards. */
export function backendPartition(listed: string, shard: number): string {
  return `${listed}#${shard}`;
}

/** Whether a deposit has ended (its sealed credentials go with the write that ends it). */
export const isFinal = (deposit: Pick<Deposit, 'status'>) =>
  deposit.status === 'done' || deposit.status === 'failed';

/**
 * The deposit's item: everything but its sealed credentials, which live in an item of their own
 * (`sealedItem`), written once, so that the deposit's many writes stay small (one write unit each).
 */
export function depositItem(deposit: Deposit) {
  const final = isFinal(deposit);
  const { sealedCredentials: _sealed, ...record } = deposit;
  return {
    ...keys.deposit(deposit.id),
    ...record,
    listedBy: listedBy(deposit.ownerKey, deposit.purpose),
    ...(deposit.backendKey === undefined
      ? {}
      : {
          backendListedBy: backendPartition(
            listedBy(deposit.backendKey, deposit.purpose),
            shardOf(deposit.id, BACKEND_SHARDS),
          ),
        }),
    opsBucket: statusPartition(statusBucket(deposit), statusShardOf(deposit.id)),
    ...(deposit.checkAt === undefined ? {} : { checkShard: checkShard(deposit.id) }),
    // Finished deposits stay readable for a good while, then expire.
    ...(final ? { expiresAt: Math.floor(deposit.updatedAt / 1000) + depositTtlAfterEndSeconds } : {}),
  };
}

/**
 * The item of a deposit's sealed credentials, beside the deposit in its partition: with the id of the
 * data key that sealed them (`dataKey`, so that an incident on one key finds its items) and its
 * expiry (`sealedTtlSeconds`).
 */
export function sealedItem(deposit: Pick<Deposit, 'id' | 'sealedCredentials' | 'createdAt'>) {
  const sealed = deposit.sealedCredentials;
  if (!sealed) throw new Error(`deposit ${deposit.id} has no credentials to store`);
  const dataKey = dataKeyOf(sealed);
  return {
    ...keys.sealed(deposit.id),
    sealedCredentials: sealed,
    ...(dataKey ? { dataKey } : {}),
    expiresAt: Math.floor(deposit.createdAt / 1000) + sealedTtlSeconds,
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
    backendListedBy: _backend,
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
