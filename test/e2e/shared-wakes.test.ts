/**
 * The shared wake-up's conditions in DynamoDB Local (`shared/adapters/shared-wakes.ts`), where the
 * fakes cannot prove them: a follower joins only a wake-up for its exact instant, still ahead, armed
 * by another; the source that armed it takes its followers once.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { tables } from '#infra/topology';
import { SharedWakeItems } from '#shared/adapters/shared-wakes';

const client = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    endpoint: inject('dynamodbEndpoint'),
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  }),
);
afterAll(() => client.destroy());
const wakes = new SharedWakeItems({ client, tableName: tables.deposits.localName });

describe('the shared wake-up in the deposits table', () => {
  it('joined only for its instant while still ahead, never by its own source; taken once by its source', async () => {
    // prepare
    const owner = `owner-${randomUUID()}`;
    const now = Date.now();
    const at = now + 60_000;
    expect(await wakes.arm(owner, 'wallet-aed', 'src_1', at, now)).toBe(true);
    const follower = (depositId: string) => ({ depositId, version: 2, step: 'transfer' as const });

    // act
    const joined = await wakes.follow(owner, 'wallet-aed', follower('dep_a'), at, now);
    const otherInstant = await wakes.follow(owner, 'wallet-aed', follower('dep_b'), at + 1, now);
    const itself = await wakes.follow(owner, 'wallet-aed', follower('src_1'), at, now);
    const tooLate = await wakes.follow(owner, 'wallet-aed', follower('dep_c'), at, at);
    const notTheSource = await wakes.take(owner, 'wallet-aed', 'src_other');
    const taken = await wakes.take(owner, 'wallet-aed', 'src_1');
    const again = await wakes.take(owner, 'wallet-aed', 'src_1');

    // assess
    expect([joined, otherInstant, itself, tooLate]).toEqual([true, false, false, false]);
    expect(notTheSource).toEqual([]);
    expect(taken).toEqual([follower('dep_a')]);
    expect(again).toEqual([]);
  });
});
