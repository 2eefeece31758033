/**
 * The deposits API's secrets at rest, over real HTTP against the local stack and the items it wrote
 * in DynamoDB Local: the deposit and its idempotency record keyed by keyed digests under the stack's
 * owner key, the user's credentials sealed while the deposit runs and dropped when it ends.
 */
import { createHash, randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { keys } from '#shared/adapters/deposits-table-items';
import { depositWhen, otpAnswer, startDeposit } from '../support/deposits.ts';
import { localDynamoDb } from '../support/local-dynamodb.ts';
import { testOwnerDigests } from '../support/local-stack.ts';
import { appSecret, createUser } from '../support/sandbox.ts';

const dynamo = localDynamoDb();

/** The deposit's item in the deposits table, as it is stored. */
async function storedDeposit(depositId: string) {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: inject('tableNames').deposits,
      Key: { pk: `DEPOSIT#${depositId}`, sk: 'DEPOSIT' },
      ConsistentRead: true,
    }),
  );
  if (!Item) throw new Error(`no item for deposit ${depositId}`);
  return Item;
}

/** The item of the deposit's sealed credentials, beside it, if there is one. */
async function storedSealed(depositId: string) {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: inject('tableNames').deposits,
      Key: { pk: `DEPOSIT#${depositId}`, sk: 'SEALED' },
      ConsistentRead: true,
    }),
  );
  return Item;
}

describe('deposits API: secrets at rest', () => {
  it("keys the deposit and its idempotency record by keyed digests under the stack's owner key, never a bare SHA-256", async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const key = randomUUID();
    const started = await startDeposit(user, { amount: 10 }, key);
    const item = await storedDeposit(started.body.operationID);
    const ownerKey = testOwnerDigests.of(user.accessToken);
    const { Item: record } = await dynamo.send(
      new GetCommand({
        TableName: inject('tableNames').deposits,
        Key: keys.idempotency(ownerKey, key),
        ConsistentRead: true,
      }),
    );

    expect(item.ownerKey).toBe(ownerKey);
    expect(item.readerKey).toBe(testOwnerDigests.of(user.userSecret));
    expect(record).toMatchObject({ depositId: started.body.operationID });
    const sha256 = (secret: string) => createHash('sha256').update(secret).digest('base64url');
    const text = JSON.stringify([item, record]);
    for (const secret of [user.accessToken, user.userSecret]) {
      expect(text).not.toContain(sha256(secret));
      expect(text).not.toContain(secret);
    }
  });

  it('keeps the credentials sealed while the deposit runs, and drops them when it ends', async () => {
    const user = await createUser('SANDBOX_OTP');
    const key = `at-rest-${randomUUID()}`;
    const started = await startDeposit(user, { amount: 30 }, key);
    const id: string = started.body.operationID;

    const asked = await depositWhen(user, id, (d) => d.status !== 'initialized');
    const waiting = await storedDeposit(id);
    const waitingSealed = await storedSealed(id);
    await startDeposit(user, { amount: 30, userInputs: otpAnswer(asked) }, key);
    const askedAgain = await depositWhen(
      user,
      id,
      (d) => d.step === 'transfer' && d.status !== 'initialized',
    );
    await startDeposit(user, { amount: 30, userInputs: otpAnswer(askedAgain) }, key);
    const done = await depositWhen(user, id);
    const ended = await storedDeposit(id);

    expect(asked.status).toBe('user_input_required');
    expect(waiting).toMatchObject({ status: 'user_input_required' });
    // The credentials live beside the deposit, sealed, in an item no index or outbox sees.
    expect(waiting).not.toHaveProperty('sealedCredentials');
    expect(waitingSealed).toMatchObject({ sealedCredentials: expect.stringMatching(/^v2\./) });
    const waitingText = JSON.stringify([waiting, waitingSealed]);
    expect(waitingText).not.toContain(user.accessToken);
    expect(waitingText).not.toContain(user.userSecret);
    expect(waitingText).not.toContain(appSecret);
    expect(done.status).toBe('done');
    expect(ended.status).toBe('done');
    expect(ended).not.toHaveProperty('sealedCredentials');
    expect(ended).not.toHaveProperty('sealedAnswers');
    expect(await storedSealed(id)).toBeUndefined();
    const endedText = JSON.stringify(ended);
    expect(endedText).not.toContain(user.accessToken);
    expect(endedText).not.toContain(user.userSecret);
  });

  it('drops the sealed credentials of a failed deposit too', async () => {
    const user = await createUser('SANDBOX_BENEFICIARY');
    const started = await startDeposit(user, { amount: 5 });

    const ended = await depositWhen(user, started.body.operationID);
    const item = await storedDeposit(started.body.operationID);

    expect(ended).toMatchObject({ status: 'failed', type: 'AMOUNT_BELOW_MINIMUM' });
    expect(item.status).toBe('failed');
    expect(item).not.toHaveProperty('sealedCredentials');
    expect(item).not.toHaveProperty('sealedAnswers');
    expect(await storedSealed(started.body.operationID)).toBeUndefined();
    expect(JSON.stringify(item)).not.toContain(user.accessToken);
  });
});
