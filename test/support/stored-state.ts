/**
 * Where a deposit stands in the tables, for a test's failure message: what its public view leaves
 * out (its version, check time, step scratch and counters, the lease it holds) and the two records
 * of its connection that can hold it back: the connection's lease (its holder, until when, who waits)
 * and the beneficiary's creation claim. A deposit that sits at one step with nothing in its history
 * waits on one of these, and a reader of the failure can tell which.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { keys } from '#shared/adapters/deposits-table-items';
import { unmanagedLocalDynamoDb } from './local-dynamodb.ts';

/** The fields of the deposit's item worth reading next to its public view. */
const depositFields = [
  'version',
  'step',
  'status',
  'updatedAt',
  'checkAt',
  'stepCounters',
  'beneficiaryWork',
  'transfer',
  'leaseHeld',
  'cooldownUntil',
] as const;

/** The deposit's item, its connection's lease and its beneficiary claim, as JSON; why not, if not read. */
export async function storedState(depositId: string): Promise<string> {
  const tableName = inject('tableNames')?.deposits;
  if (!inject('dynamodbEndpoint') || !tableName) return 'no table to read';
  const client = unmanagedLocalDynamoDb();
  const read = async (key: Record<string, string>) =>
    (await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
  try {
    const item = await read(keys.deposit(depositId));
    if (!item) return 'no item';
    const { ownerKey, walletAccountId } = item as { ownerKey: string; walletAccountId?: string };
    const [lease, claim] = await Promise.all([
      read(keys.lease(ownerKey)),
      walletAccountId ? read(keys.beneficiary(ownerKey, walletAccountId)) : undefined,
    ]);
    // The records as stored, less their keys and expiry; times are epoch ms, `now` beside them.
    const bare = (record: Record<string, unknown> | undefined) => {
      if (!record) return undefined;
      const { pk: _pk, sk: _sk, expiresAt: _expires, ...rest } = record;
      return rest;
    };
    return JSON.stringify({
      now: Date.now(),
      deposit: Object.fromEntries(depositFields.map((field) => [field, item[field]])),
      lease: bare(lease),
      claim: bare(claim),
    });
  } catch (error) {
    return `not read: ${(error as Error).message}`;
  } finally {
    client.destroy();
  }
}
