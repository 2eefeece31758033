/**
 * The sandbox table's count of a connection's recent calls, for banks that limit how many a
 * connection makes in a rolling window: the instants of the calls still inside the window, kept on
 * the connection's item and replaced under a version check, so that two calls at once never both
 * take the last place.
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally } from '#shared/adapters/dynamodb';
import type { CallLimit } from '#shared/sandbox/store';
import { keys } from './sandbox-table-items.ts';

/** Tries of the read-and-replace when other calls write the count at the same moment. */
const TRIES = 5;

/**
 * Counts a call at `now` if the connection has a place left in the window: undefined when counted,
 * else how long until the oldest call leaves the window (ms). Contention past the tries answers a
 * second, as a full window would.
 */
export async function countCallInWindow(
  client: DynamoDBDocumentClient,
  tableName: string,
  connectionId: string,
  now: number,
  limit: CallLimit,
): Promise<number | undefined> {
  const Key = keys.connection(connectionId);
  for (let attempt = 0; attempt < TRIES; attempt += 1) {
    const { Item } = await client.send(
      new GetCommand({
        TableName: tableName,
        Key,
        ConsistentRead: true,
        ProjectionExpression: 'recentCalls, callsVersion',
      }),
    );
    const recent = ((Item?.recentCalls as number[] | undefined) ?? []).filter(
      (at) => at > now - limit.windowMs,
    );
    const [oldest] = recent;
    if (recent.length >= limit.calls && oldest !== undefined) return oldest + limit.windowMs - now;
    const version = (Item?.callsVersion as number | undefined) ?? 0;
    const counted = await conditionally(
      client.send(
        new UpdateCommand({
          TableName: tableName,
          Key,
          UpdateExpression: 'SET recentCalls = :calls, callsVersion = :next',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(callsVersion) OR callsVersion = :version)',
          ExpressionAttributeValues: {
            ':calls': [...recent, now],
            ':next': version + 1,
            ':version': version,
          },
        }),
      ),
    );
    if (counted) return undefined;
  }
  return 1_000;
}
