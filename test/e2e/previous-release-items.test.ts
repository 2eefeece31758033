/**
 * Deposits a deploy finds in flight, in DynamoDB Local: one the release before this one left, its
 * credentials sealed in `v1` (test/support/sealed-credentials.json, sealed by that release's code) in
 * their own item, as that release wrote it (no data key named, no expiry). After the deploy the steps
 * that open credentials still read and open them, and the write that ends the deposit deletes them.
 * A deposit of this release keeps its credentials in their own item, never on the deposit's, with
 * the id of the data key that sealed them and an expiry (the table's TTL attribute) as a backstop.
 * One with its step scratch flat on the item (the shape before 2026-11-27) is read into the groups
 * of this release, and its next write stores them so. No check time: the local stack's sweeper leaves these deposits alone.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { CredentialVault, dataKeyOf } from '#shared/adapters/credential-vault';
import { LocalDataKeys } from '#shared/adapters/credentials-key';
import { DepositItems, IdempotencyItems } from '#shared/adapters/deposit-items';
import { depositItem, keys, sealedTtlSeconds } from '#shared/adapters/deposits-table-items';
import type { Deposit } from '#shared/deposits/model/deposit';
import { localDynamoDb } from '../support/local-dynamodb.ts';
import sealedBefore from '../support/sealed-credentials.json' with { type: 'json' };

const client = localDynamoDb();
const table = { client, tableName: inject('tableNames').deposits };
const vault = new CredentialVault(new LocalDataKeys(sealedBefore.localKey));

function inFlight(id: string, at = Date.now()): Deposit {
  return {
    id,
    ownerKey: `owner-${id}`,
    readerKey: 'reader',
    idempotencyKey: id,
    fingerprint: 'f',
    status: 'initialized',
    step: 'resolve-bank',
    version: 1,
    amountMinor: 100,
    currency: 'AED',
    senderId: 'acc-1',
    walletAccountId: 'wallet-aed',
    stepCounters: { retries: 0 },
    history: [],
    createdAt: at,
    updatedAt: at,
  };
}

const rawItem = async (key: { pk: string; sk: string }) =>
  (await client.send(new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }))).Item;

describe('a deploy finds deposits in flight', () => {
  it('opens the credentials the previous release sealed (v1), and deletes them with the write that ends the deposit', async () => {
    // prepare: the deposit as the previous release wrote it (its sealing is bound to this id)
    const { depositId: id, sealed } = sealedBefore.v1.credentials;
    for (const key of [keys.deposit(id), keys.sealed(id)]) {
      await client.send(new DeleteCommand({ TableName: table.tableName, Key: key }));
    }
    await client.send(new PutCommand({ TableName: table.tableName, Item: depositItem(inFlight(id)) }));
    await client.send(
      new PutCommand({ TableName: table.tableName, Item: { ...keys.sealed(id), sealedCredentials: sealed } }),
    );

    // act: a step that opens them reads and writes the deposit, a step ends it
    const opener = new DepositItems(table, { withCredentials: true });
    const read = (await opener.get(id)) ?? expect.fail('no deposit');
    const opened = await vault.open(
      'credentials',
      id,
      read.sealedCredentials ?? expect.fail('no credentials'),
    );
    const stepped = await opener.save({ ...read, version: 2, step: 'ensure-beneficiary' }, 1);
    const afterStep = await rawItem(keys.deposit(id));
    const last = (await opener.get(id)) ?? expect.fail('no deposit');
    const ended = await opener.save(
      { ...last, version: 3, status: 'failed', sealedCredentials: undefined },
      2,
    );

    // assess
    expect(opened).toEqual({
      accessToken: 'token-sealed-in-v1',
      appSecret: 'app-secret-sealed-in-v1',
      userSecret: 'user-secret-sealed-in-v1',
    });
    expect(stepped).toBe(true);
    expect(afterStep).not.toHaveProperty('sealedCredentials');
    expect(last.sealedCredentials).toBe(sealed);
    expect(ended).toBe(true);
    expect((await rawItem(keys.deposit(id)))?.version).toBe(3);
    expect(await rawItem(keys.sealed(id))).toBeUndefined();
  });

  it("keeps this release's credentials in their own item, never on the deposit's, naming their data key, with an expiry", async () => {
    // prepare
    const id = `dep_this_release_${randomUUID().slice(0, 8)}`;
    const sealed = await vault.seal('credentials', id, { accessToken: 'a', appSecret: 'b', userSecret: 'c' });
    const created = inFlight(id);
    await new IdempotencyItems(table).createOnce({ ...created, sealedCredentials: sealed });

    // act
    const opener = new DepositItems(table, { withCredentials: true });
    const read = (await opener.get(id)) ?? expect.fail('no deposit');
    await opener.save({ ...read, version: 2, step: 'ensure-beneficiary' }, 1);

    // assess
    expect(read.sealedCredentials).toBe(sealed);
    expect(await rawItem(keys.deposit(id))).not.toHaveProperty('sealedCredentials');
    expect(await rawItem(keys.sealed(id))).toEqual({
      ...keys.sealed(id),
      sealedCredentials: sealed,
      dataKey: dataKeyOf(sealed),
      expiresAt: Math.floor(created.createdAt / 1000) + sealedTtlSeconds,
    });
  });

  it('reads a deposit the release before wrote with its step scratch flat, and writes it back grouped', async () => {
    // prepare: the item as that release wrote it (the shape before 2026-11-27)
    const id = `dep_flat_${randomUUID().slice(0, 8)}`;
    const { stepCounters: _counters, ...facts } = inFlight(id);
    const flat = {
      transferAttempt: { at: 1_000, answering: false },
      transferOperationId: 'op-7',
      polls: 2,
      pollAt: 5_000,
      sendBeneficiaryDetails: true,
      retries: 1,
      busyWaits: 2,
      reasks: 1,
    };
    await client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...depositItem({ ...facts, step: 'reconcile' } as Deposit), ...flat },
      }),
    );

    // act
    const records = new DepositItems(table);
    const read = (await records.get(id)) ?? expect.fail('no deposit');
    const saved = await records.save({ ...read, version: 2 }, 1);
    const stored = await rawItem(keys.deposit(id));

    // assess
    const grouped = {
      transfer: { attempt: { at: 1_000, answering: false }, operationId: 'op-7', polls: 2, pollAt: 5_000 },
      beneficiaryWork: { sendDetails: true },
      stepCounters: { retries: 1, busyWaits: 2 },
      tallies: { reasks: 1 },
    };
    expect(read).toMatchObject({ step: 'reconcile', version: 1, ...grouped });
    expect(saved).toBe(true);
    expect(stored).toMatchObject({ version: 2, ...grouped });
    for (const name of Object.keys(flat)) expect(stored).not.toHaveProperty(name);
  });
});
