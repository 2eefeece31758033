/**
 * The webhook deliveries' records in the deposits table (`shared/deposits/background/deliveries.ts`): one item
 * per event, `DELIVERY#<deposit>` / `EVENT#<event id>`, updated (never read first) on each try, so
 * that two tries of one event, or a try and a resend, never lose each other's counts. The event
 * rides as `payload`: an item with an `event` attribute would reach the outbox relay's stream filter.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Delivery, DeliveryRecords, TryRecord } from '#shared/deposits/background/deliveries';
import { deliveryTtlSeconds, keys, type Table } from './deposits-table-items.ts';

const expiry = (at: number) => Math.floor(at / 1000) + deliveryTtlSeconds;

function fromDeliveryItem(item: Record<string, unknown>): Delivery {
  const { pk: _pk, sk: _sk, expiresAt: _expires, payload, ...record } = item;
  return { resends: 0, tries: [], ...record, event: payload } as unknown as Delivery;
}

export class DeliveryItems implements DeliveryRecords {
  constructor(private readonly table: Table) {}

  async tried({ event, attempt, state, nextTryAt }: TryRecord): Promise<void> {
    const sets = [
      'depositId = :depositId',
      'eventId = :eventId',
      'payload = if_not_exists(payload, :payload)',
      '#state = :state',
      'firstTriedAt = if_not_exists(firstTriedAt, :at)',
      'lastTriedAt = :at',
      'tries = list_append(if_not_exists(tries, :none), :try)',
      'expiresAt = :expiresAt',
      ...(attempt.outcome === 'delivered' ? ['deliveredAt = if_not_exists(deliveredAt, :at)'] : []),
      ...(nextTryAt === undefined ? [] : ['nextTryAt = :nextTryAt']),
    ];
    await this.table.client.send(
      new UpdateCommand({
        TableName: this.table.tableName,
        Key: keys.delivery(event.depositId, event.id),
        UpdateExpression: `SET ${sets.join(', ')} ADD attempts :one${nextTryAt === undefined ? ' REMOVE nextTryAt' : ''}`,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':depositId': event.depositId,
          ':eventId': event.id,
          ':payload': event,
          ':state': state,
          ':at': attempt.at,
          ':none': [],
          ':try': [attempt],
          ':expiresAt': expiry(attempt.at),
          ':one': 1,
          ...(nextTryAt === undefined ? {} : { ':nextTryAt': nextTryAt }),
        },
      }),
    );
  }

  async of(depositId: string): Promise<Delivery[]> {
    const { pk } = keys.delivery(depositId, '');
    const deliveries: Delivery[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const { Items = [], LastEvaluatedKey } = await this.table.client.send(
        new QueryCommand({
          TableName: this.table.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      deliveries.push(...Items.map(fromDeliveryItem));
      start = LastEvaluatedKey;
    } while (start);
    return deliveries;
  }

  async get(depositId: string, eventId: string): Promise<Delivery | undefined> {
    const { pk, sk } = keys.delivery(depositId, eventId);
    const { Items = [] } = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.tableName,
        KeyConditionExpression: 'pk = :pk AND sk = :sk',
        ExpressionAttributeValues: { ':pk': pk, ':sk': sk },
        ConsistentRead: true,
      }),
    );
    return Items[0] ? fromDeliveryItem(Items[0]) : undefined;
  }

  async resent(depositId: string, eventId: string, by: { by: string; at: number }): Promise<number> {
    const { Attributes } = await this.table.client.send(
      new UpdateCommand({
        TableName: this.table.tableName,
        Key: keys.delivery(depositId, eventId),
        UpdateExpression: 'SET lastResend = :by, expiresAt = :expiresAt ADD resends :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':by': by, ':expiresAt': expiry(by.at), ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(Attributes?.resends ?? 1);
  }
}
