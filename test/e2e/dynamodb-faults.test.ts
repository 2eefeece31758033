/**
 * The local stack's DynamoDB faults (`infra/local/dynamodb-faults.ts`), in the SDK client's middleware
 * over DynamoDB Local: each kind goes off on the calls of the connection it was armed for (and no
 * other), is counted, and reaches the adapters as DynamoDB's answers would, through the SDK's own
 * retries (`DYNAMODB_MAX_ATTEMPTS` tries of a call). A lost answer lands its write and loses the
 * answer: the SDK sends the write again, and the adapter must still tell that the write was its own.
 * The client here is the test's own, with the middleware added; the rules are armed in this process.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { addDynamoDbFaults } from '#infra/local/dynamodb-fault-middleware';
import { type DynamoDbFaultKind, dynamoDbFaults } from '#infra/local/dynamodb-faults';
import { DYNAMODB_MAX_ATTEMPTS } from '#shared/adapters/clients';
import { ConnectionLeaseItems } from '#shared/adapters/connection-lease-items';
import { DepositItems, IdempotencyItems } from '#shared/adapters/deposit-items';
import { BeneficiaryClaimItems } from '#shared/adapters/deposits-table';
import { keys } from '#shared/adapters/deposits-table-items';
import { SharedWakeItems } from '#shared/adapters/shared-wakes';
import type { Deposit } from '#shared/deposits/model/deposit';

const client = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    endpoint: inject('dynamodbEndpoint'),
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: DYNAMODB_MAX_ATTEMPTS,
  }),
  { marshallOptions: { removeUndefinedValues: true } },
);
// The stack's deposits table: its processes have the name in their environment, this one does not.
addDynamoDbFaults(client, inject('tableNames').deposits);
afterAll(() => client.destroy());
afterEach(() => dynamoDbFaults.clear());

const table = { client, tableName: inject('tableNames').deposits };
const leases = new ConnectionLeaseItems(table);
const claims = new BeneficiaryClaimItems(table);
const wakes = new SharedWakeItems(table);
const deposits = new DepositItems(table);

const owner = () => `owner-${randomUUID()}`;
const fired = (kind: DynamoDbFaultKind) => dynamoDbFaults.report().fired[kind] ?? 0;
/** The lease item as DynamoDB Local holds it, read past the faults (no rule is for this read's owner). */
const leaseItem = async (ownerKey: string) =>
  (
    await client.send(
      new GetCommand({ TableName: table.tableName, Key: keys.lease(ownerKey), ConsistentRead: true }),
    )
  ).Item;

function newDeposit(ownerKey: string): Deposit {
  const id = `dep_ddb_${randomUUID()}`;
  const now = Date.now();
  return {
    id,
    ownerKey,
    readerKey: 'reader',
    idempotencyKey: id,
    fingerprint: 'f',
    status: 'initialized',
    step: 'resolve-bank',
    version: 0,
    amountMinor: 100,
    currency: 'AED',
    senderId: 'acc-1',
    walletAccountId: 'wallet-aed',
    stepCounters: { retries: 0 },
    history: [],
    createdAt: now,
    updatedAt: now,
  };
}

describe('DynamoDB faults before the call has any effect', () => {
  it('a throttling the SDK retries away: counted, and the write made on the next attempt', async () => {
    // prepare
    const ownerKey = owner();
    dynamoDbFaults.arm('throttling', ownerKey, 1);

    // act
    const taken = await leases.acquire(ownerKey, 'dep_1#run', Date.now() + 8_000, Date.now());

    // assess
    expect(taken).toBe(true);
    expect(fired('throttling')).toBe(1);
    expect(dynamoDbFaults.report().armed).toBe(0);
  });

  it('throttled on every attempt: the caller hears ProvisionedThroughputExceededException, nothing written', async () => {
    const ownerKey = owner();
    dynamoDbFaults.arm('throughput-exceeded', ownerKey, DYNAMODB_MAX_ATTEMPTS);

    const acquiring = leases.acquire(ownerKey, 'dep_1#run', Date.now() + 8_000, Date.now());

    await expect(acquiring).rejects.toMatchObject({
      name: 'ProvisionedThroughputExceededException',
      $metadata: { attempts: DYNAMODB_MAX_ATTEMPTS },
    });
    expect(fired('throughput-exceeded')).toBe(DYNAMODB_MAX_ATTEMPTS);
    expect(await leaseItem(ownerKey)).toBeUndefined();
  });

  it('an internal error on every attempt: InternalServerError, nothing written; another connection untouched', async () => {
    const [ownerKey, other] = [owner(), owner()];
    dynamoDbFaults.arm('internal-error', ownerKey, DYNAMODB_MAX_ATTEMPTS);

    const otherTaken = await leases.acquire(other, 'dep_2#run', Date.now() + 8_000, Date.now());
    const acquiring = leases.acquire(ownerKey, 'dep_1#run', Date.now() + 8_000, Date.now());

    await expect(acquiring).rejects.toMatchObject({ name: 'InternalServerError' });
    expect(otherTaken).toBe(true);
    expect(fired('internal-error')).toBe(DYNAMODB_MAX_ATTEMPTS);
    expect(await leaseItem(ownerKey)).toBeUndefined();
  });

  it("a transaction conflict on a deposit's write: not retried by the SDK, the deposit unchanged", async () => {
    // prepare: a deposit, read back (its owner known by the reads and writes of its items)
    const deposit = newDeposit(owner());
    expect(await new IdempotencyItems(table).createOnce(deposit)).toEqual({ created: true });
    dynamoDbFaults.arm('transaction-conflict', deposit.ownerKey, 2);

    // act: its next version written, and a lease write of the same connection (not a deposit item)
    const read = (await deposits.get(deposit.id)) as Deposit;
    const saving = deposits.save({ ...read, version: 1, step: 'transfer' }, 0);
    await expect(saving).rejects.toMatchObject({ name: 'TransactionConflictException' });
    const leaseTaken = await leases.acquire(deposit.ownerKey, 'dep_1#run', Date.now() + 8_000, Date.now());

    // assess: one call, one fault (the SDK did not send it again); the rule's second call is left for
    // the next write of the deposit, and the one after it is written
    expect(fired('transaction-conflict')).toBe(1);
    expect(leaseTaken).toBe(true);
    expect(await deposits.get(deposit.id)).toMatchObject({ version: 0, step: 'resolve-bank' });
    await expect(deposits.save({ ...read, version: 1, step: 'transfer' }, 0)).rejects.toMatchObject({
      name: 'TransactionConflictException',
    });
    expect(fired('transaction-conflict')).toBe(2);
    expect(await deposits.save({ ...read, version: 1, step: 'transfer' }, 0)).toBe(true);
  });
});

describe('a write that lands and whose answer is lost', () => {
  it("the lease: taken, and the SDK's retry hears it taken", async () => {
    const ownerKey = owner();
    dynamoDbFaults.arm('lost-lease-answer', ownerKey, 1);

    const taken = await leases.acquire(ownerKey, 'dep_1#run', Date.now() + 8_000, Date.now());

    expect(fired('lost-lease-answer')).toBe(1);
    expect(taken).toBe(true);
    expect(await leases.holderOf(ownerKey)).toMatchObject({ holder: 'dep_1#run' });
  });

  it('every answer lost: the caller sees the timeout, and the lease it sent is held', async () => {
    const ownerKey = owner();
    dynamoDbFaults.arm('lost-lease-answer', ownerKey, DYNAMODB_MAX_ATTEMPTS);

    const acquiring = leases.acquire(ownerKey, 'dep_1#run', Date.now() + 8_000, Date.now());

    await expect(acquiring).rejects.toMatchObject({ name: 'TimeoutError', code: 'ECONNRESET' });
    expect(fired('lost-lease-answer')).toBe(DYNAMODB_MAX_ATTEMPTS);
    expect(await leases.holderOf(ownerKey)).toMatchObject({ holder: 'dep_1#run' });
  });

  it("the beneficiary claim: claimed, though the SDK's retry finds it taken (by this very claim)", async () => {
    const ownerKey = owner();
    const claim = {
      ownerKey,
      walletAccountId: 'wallet-aed',
      depositId: 'dep_a',
      state: 'creating' as const,
      claimedAt: Date.now(),
    };
    dynamoDbFaults.arm('lost-claim-answer', ownerKey, 1);

    const claimed = await claims.claim(claim, 0);

    expect(fired('lost-claim-answer')).toBe(1);
    expect(claimed).toBe(true);
    expect(await claims.get(ownerKey, 'wallet-aed')).toMatchObject({ depositId: 'dep_a' });
  });

  it("the claim's refresh by its holder: refreshed, though the retry finds the time moved on already", async () => {
    const ownerKey = owner();
    const now = Date.now();
    const base = { ownerKey, walletAccountId: 'wallet-aed', depositId: 'dep_a' };
    expect(await claims.claim({ ...base, state: 'creating', claimedAt: now }, 0)).toBe(true);
    dynamoDbFaults.arm('lost-claim-answer', ownerKey, 1);

    const refreshed = await claims.refresh(ownerKey, 'wallet-aed', 'dep_a', now + 5_000);

    expect(fired('lost-claim-answer')).toBe(1);
    expect(refreshed).toBe(true);
    expect(await claims.get(ownerKey, 'wallet-aed')).toMatchObject({ claimedAt: now + 5_000 });
  });

  it("another's claim is still refused when the answer is lost", async () => {
    const ownerKey = owner();
    const now = Date.now();
    const base = { ownerKey, walletAccountId: 'wallet-aed', state: 'creating' as const, claimedAt: now };
    expect(await claims.claim({ ...base, depositId: 'dep_a' }, 0)).toBe(true);
    dynamoDbFaults.arm('lost-claim-answer', ownerKey, 1);

    const claimed = await claims.claim({ ...base, depositId: 'dep_b' }, 0);
    const refreshed = await claims.refresh(ownerKey, 'wallet-aed', 'dep_b', now + 5_000);

    expect(fired('lost-claim-answer')).toBe(1);
    expect([claimed, refreshed]).toEqual([false, false]);
    expect(await claims.get(ownerKey, 'wallet-aed')).toMatchObject({ depositId: 'dep_a', claimedAt: now });
  });

  it("the shared wake-up: armed, joined, and taken with its followers, though each retry's condition fails", async () => {
    const ownerKey = owner();
    const now = Date.now();
    const at = now + 60_000;
    const follower = { depositId: 'dep_b', version: 2, step: 'transfer' as const };
    // One answer lost of each call (a rule goes off on each attempt the SDK makes: one at a time).
    const losing = <T>(call: () => Promise<T>) => {
      dynamoDbFaults.arm('lost-wake-answer', ownerKey, 1);
      return call();
    };

    const armed = await losing(() => wakes.arm(ownerKey, 'wallet-aed', 'src_1', at, now));
    const joined = await losing(() => wakes.follow(ownerKey, 'wallet-aed', follower, at, now));
    const taken = await losing(() => wakes.take(ownerKey, 'wallet-aed', 'src_1'));

    expect(fired('lost-wake-answer')).toBe(3);
    expect([armed, joined]).toEqual([true, true]);
    expect(new Set(taken.map((one) => one.depositId))).toEqual(new Set(['dep_b']));
    expect(await wakes.take(ownerKey, 'wallet-aed', 'src_1')).toEqual([]);
  });
});
