/**
 * The shared wake-ups of payment sources, in the deposits table: one item per connection and wallet
 * account (`WAKE#<owner>#<wallet account>`) naming the source that armed a wake-up, its instant, and
 * the deposits that follow it. It expires a day after its instant (TTL), whether or not it was taken.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally } from '#shared/adapters/dynamodb';
import type { Follower } from '#shared/deposits/model';
import type { SharedWakes } from '#shared/deposits/ports';
import { keys, type Table, wakeTtlAfterInstantSeconds } from './deposits-table-items.ts';

/** Most deposits that follow one wake-up; past them, each arms its own. */
export const MAX_FOLLOWERS = 100;

const key = keys.wake;

interface WakeItem {
  by: string;
  at: number;
  followers: Follower[];
}

export class SharedWakeItems implements SharedWakes {
  constructor(private readonly table: Table) {}

  async arm(
    ownerKey: string,
    walletAccountId: string,
    by: string,
    at: number,
    now: number,
  ): Promise<boolean> {
    const Key = key(ownerKey, walletAccountId);
    const armed = await conditionally(
      this.table.client.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: {
            ...Key,
            by,
            at,
            followers: [],
            expiresAt: Math.floor(at / 1000) + wakeTtlAfterInstantSeconds,
          },
          // None pending: none at all, or one whose instant has passed (its source never took it).
          ConditionExpression: 'attribute_not_exists(pk) OR #at < :now',
          ExpressionAttributeNames: { '#at': 'at' },
          ExpressionAttributeValues: { ':now': now },
        }),
      ),
    );
    if (armed) return true;
    // Armed already by this source (a retry of its step): its followers stay.
    const { Item } = await this.table.client.send(
      new GetCommand({ TableName: this.table.tableName, Key, ConsistentRead: true }),
    );
    const pending = Item as WakeItem | undefined;
    return pending?.by === by && pending.at === at;
  }

  follow(
    ownerKey: string,
    walletAccountId: string,
    follower: Follower,
    at: number,
    now: number,
  ): Promise<boolean> {
    return conditionally(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: key(ownerKey, walletAccountId),
          UpdateExpression: 'SET followers = list_append(followers, :follower)',
          ConditionExpression: '#at = :at AND #at > :now AND #by <> :self AND size(followers) < :max',
          ExpressionAttributeNames: { '#at': 'at', '#by': 'by' },
          ExpressionAttributeValues: {
            ':follower': [follower],
            ':at': at,
            ':now': now,
            ':self': follower.depositId,
            ':max': MAX_FOLLOWERS,
          },
        }),
      ),
    );
  }

  async take(ownerKey: string, walletAccountId: string, by: string): Promise<Follower[]> {
    try {
      const { Attributes } = await this.table.client.send(
        new DeleteCommand({
          TableName: this.table.tableName,
          Key: key(ownerKey, walletAccountId),
          ConditionExpression: '#by = :by',
          ExpressionAttributeNames: { '#by': 'by' },
          ExpressionAttributeValues: { ':by': by },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return (Attributes as WakeItem | undefined)?.followers ?? [];
    } catch (error) {
      // Not this source's wake-up (another's, or none): nobody follows it.
      if (error instanceof ConditionalCheckFailedException) return [];
      throw error;
    }
  }
}
