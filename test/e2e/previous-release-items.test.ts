/**
 * Deposits a deploy finds in flight, in DynamoDB Local: one the release before issue 22 left, its
 * credentials on its own item (no `SEALED` item) and sealed by the AWS Encryption SDK
 * (test/support/sealed-credentials.json, sealed by that release's code). After the deploy the steps
 * that open credentials still read and open them, every write of the deposit in flight keeps them, a
 * reader that does not open them is not given them, and the write that ends the deposit drops them.
 * A deposit of this release keeps its credentials in their own item, never on the deposit's.
 * No check time: the local stack's sweeper leaves these deposits alone.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { tables } from '#infra/topology';
import { CredentialVault } from '#shared/adapters/credential-vault';
import { LocalDataKeys } from '#shared/adapters/credentials-key';
import { DepositItems, IdempotencyItems } from '#shared/adapters/deposit-items';
import { depositItem, keys } from '#shared/adapters/deposits-table-items';
import type { Deposit } from '#shared/deposits/model';
import { localDynamoDb } from '../support/local-dynamodb.ts';
import sealedBefore from '../support/sealed-credentials.json' with { type: 'json' };

const client = localDynamoDb();
const table = { client, tableName: tables.deposits.localName };
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
    retries: 0,
    history: [],
    createdAt: at,
    updatedAt: at,
  };
}

const rawItem = async (key: { pk: string; sk: string }) =>
  (await client.send(new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }))).Item;

describe('a deploy finds deposits in flight', () => {
  it('keeps the credentials the previous release stored on the deposit item until the deposit ends', async () => {
    // prepare: the deposit as the previous release wrote it (its sealing is bound to this id)
    const { depositId: id, sealed } = sealedBefore.previous.credentials;
    for (const key of [keys.deposit(id), keys.sealed(id)]) {
      await client.send(new DeleteCommand({ TableName: table.tableName, Key: key }));
    }
    await client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...depositItem(inFlight(id)), sealedCredentials: sealed },
      }),
    );

    // act: a step that opens them reads and writes it, the create (answers) does, a step ends it
    const opener = new DepositItems(table, { withCredentials: true });
    const read = (await opener.get(id)) ?? expect.fail('no deposit');
    const opened = await vault.open(id, read.sealedCredentials ?? expect.fail('no credentials'));
    const stepped = await opener.save({ ...read, version: 2, step: 'ensure-beneficiary' }, 1);
    const afterStep = await rawItem(keys.deposit(id));
    const reader = new DepositItems(table);
    const answered = (await reader.get(id)) ?? expect.fail('no deposit');
    await reader.save({ ...answered, version: 3, sealedAnswers: 'sealed-answers' }, 2);
    const afterAnswer = await rawItem(keys.deposit(id));
    const ender = new DepositItems(table, { withCredentials: true });
    const last = (await ender.get(id)) ?? expect.fail('no deposit');
    const ended = await ender.save(
      { ...last, version: 4, status: 'failed', sealedCredentials: undefined, sealedAnswers: undefined },
      3,
    );
    const afterEnd = await rawItem(keys.deposit(id));

    // assess
    expect(opened).toEqual({
      accessToken: 'token-sealed-before-issue-22',
      appSecret: 'app-secret-sealed-before-issue-22',
      userSecret: 'user-secret-sealed-before-issue-22',
    });
    expect(stepped).toBe(true);
    expect(afterStep).toMatchObject({ version: 2, sealedCredentials: sealed });
    expect(answered.sealedCredentials).toBeUndefined();
    expect(afterAnswer).toMatchObject({
      version: 3,
      sealedCredentials: sealed,
      sealedAnswers: 'sealed-answers',
    });
    expect(last.sealedCredentials).toBe(sealed);
    expect(ended).toBe(true);
    expect(afterEnd?.version).toBe(4);
    expect(afterEnd).not.toHaveProperty('sealedCredentials');
    expect(await rawItem(keys.sealed(id))).toBeUndefined();
  });

  it("keeps this release's credentials in their own item, never on the deposit's", async () => {
    // prepare
    const id = `dep_this_release_${randomUUID().slice(0, 8)}`;
    const sealed = await vault.seal(id, { accessToken: 'a', appSecret: 'b', userSecret: 'c' });
    await new IdempotencyItems(table).createOnce({ ...inFlight(id), sealedCredentials: sealed });

    // act
    const opener = new DepositItems(table, { withCredentials: true });
    const read = (await opener.get(id)) ?? expect.fail('no deposit');
    await opener.save({ ...read, version: 2, step: 'ensure-beneficiary' }, 1);

    // assess
    expect(read.sealedCredentials).toBe(sealed);
    expect(await rawItem(keys.deposit(id))).not.toHaveProperty('sealedCredentials');
    expect(await rawItem(keys.sealed(id))).toMatchObject({ sealedCredentials: sealed });
  });
});
