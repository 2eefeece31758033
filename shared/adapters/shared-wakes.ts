/**
 * The shared wake-ups of payment sources, in the deposits table: one item per connection and wallet
 * account (`WAKE#<owner>#<wallet account>`) naming the source that armed a wake-up, its instant, and
 * the deposits that follow it. It expires a day after its instant (TTL), whether or not it was taken.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally, failedAgainst } from '#shared/adapters/dynamodb';
import type { Follower } from '#shared/deposits/model/messages';
import type { SharedWakes } from '#shared/deposits/ports/connection';
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

  /**
   * Takes the source's wake-up and its followers: read, then deleted while it still holds just those
   * followers. A delete whose answer was lost is sent again by the SDK, and that retry finds nothing
   * to delete: the followers read are handed on all the same (so they are when another taker, the
   * sweeper's backstop, took them first: a follower woken twice drops the second message, its version
   * moved on).
   */
  async take(ownerKey: string, walletAccountId: string, by: string): Promise<Follower[]> {
    const Key = key(ownerKey, walletAccountId);
    const { Item } = await this.table.client.send(
      new GetCommand({ TableName: this.table.tableName, Key, ConsistentRead: true }),
    );
    // Not this source's wake-up (another's, or none): nobody follows it.
    let pending = Item as WakeItem | undefined;
    while (pending?.by === by) {
      try {
        await this.table.client.send(
          new DeleteCommand({
            TableName: this.table.tableName,
            Key,
            ConditionExpression: '#by = :by AND #at = :at AND size(followers) = :count',
            ExpressionAttributeNames: { '#by': 'by', '#at': 'at' },
            ExpressionAttributeValues: { ':by': by, ':at': pending.at, ':count': pending.followers.length },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return pending.followers;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        const found = failedAgainst(error) as WakeItem | undefined;
        // The wake-up read is gone: taken, by this delete (its answer lost) or by another taker.
        if (found?.by !== by || found.at !== pending.at) return pending.followers;
        // Joined since it was read: taken with every follower it has now.
        pending = found;
      }
    }
    return [];
  }
}
