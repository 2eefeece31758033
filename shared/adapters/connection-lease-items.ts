/**
 * The deposits table's lease item of a connection (the port `ConnectionLeases`; keys in
 * `deposits-table-items.ts`).
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { conditionally, conditionallyReturning } from '#shared/adapters/dynamodb';
import { DepositStep } from '#shared/deposits/model/deposit';
import type { ConnectionLeases, LeaseWaiter } from '#shared/deposits/ports/connection';
import { keys, leaseTtlAfterUntilSeconds, type Table } from './deposits-table-items.ts';

/**
 * Connection leases: one provider operation at a time per user connection. Who waits for the lease
 * is on its item, an attribute per deposit (`wait_<deposit id>`: its step, version, trace and when it
 * began to wait), so that recording a wait, ending it and taking it to wake are each one write.
 */
export class ConnectionLeaseItems implements ConnectionLeases {
  constructor(private readonly table: Table) {}

  acquire(ownerKey: string, holder: string, until: number, now: number, reclaimable?: string) {
    // Taking the lease ends the holder's deposit's wait for it.
    const waiting = depositOf(holder);
    return conditionally(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.lease(ownerKey),
          UpdateExpression: `SET holder = :holder, #until = :until, expiresAt = :expires${waiting ? ' REMOVE #wait' : ''}`,
          ConditionExpression:
            'attribute_not_exists(holder) OR holder = :holder OR holder = :reclaimable OR #until < :now',
          ExpressionAttributeNames: {
            '#until': 'until',
            ...(waiting ? { '#wait': waitAttribute(waiting) } : {}),
          },
          ExpressionAttributeValues: {
            ':holder': holder,
            ':reclaimable': reclaimable ?? holder,
            ':until': until,
            ':now': now,
            ':expires': Math.ceil(until / 1000) + leaseTtlAfterUntilSeconds,
          },
        }),
      ),
    );
  }

  async holderOf(ownerKey: string): Promise<{ holder: string; until: number } | undefined> {
    const { Item: item } = await this.table.client.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.lease(ownerKey), ConsistentRead: true }),
    );
    return typeof item?.holder === 'string' ? { holder: item.holder, until: Number(item.until) } : undefined;
  }

  async release(ownerKey: string, holder: string): Promise<LeaseWaiter[]> {
    const old = await conditionallyReturning(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.lease(ownerKey),
          UpdateExpression: 'REMOVE holder, #until',
          ConditionExpression: 'holder = :holder',
          ExpressionAttributeNames: { '#until': 'until' },
          ExpressionAttributeValues: { ':holder': holder },
          ReturnValues: 'ALL_OLD',
        }),
      ),
    );
    return Object.entries(old ?? {}).flatMap(([name, value]) => {
      if (!name.startsWith(WAIT_PREFIX)) return [];
      const waiter = waiterOf(name.slice(WAIT_PREFIX.length), value);
      return waiter ? [waiter] : [];
    });
  }

  wait(ownerKey: string, waiter: LeaseWaiter, now: number): Promise<boolean> {
    const { depositId, ...entry } = waiter;
    return conditionally(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.lease(ownerKey),
          UpdateExpression: 'SET #wait = :entry',
          // Only while another holds it: a free lease has nobody to wake its waiters.
          ConditionExpression: 'attribute_exists(holder) AND #until >= :now',
          ExpressionAttributeNames: { '#until': 'until', '#wait': waitAttribute(depositId) },
          ExpressionAttributeValues: { ':entry': entry, ':now': now },
        }),
      ),
    );
  }

  async wake(ownerKey: string, depositId: string): Promise<LeaseWaiter | undefined> {
    const old = await conditionallyReturning(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.lease(ownerKey),
          UpdateExpression: 'REMOVE #wait',
          ConditionExpression: 'attribute_exists(#wait)',
          ExpressionAttributeNames: { '#wait': waitAttribute(depositId) },
          ReturnValues: 'UPDATED_OLD',
        }),
      ),
    );
    return old && waiterOf(depositId, old[waitAttribute(depositId)]);
  }
}

const WAIT_PREFIX = 'wait_';
const waitAttribute = (depositId: string) => `${WAIT_PREFIX}${depositId}`;

/** The deposit of a holder `<deposit id>#<run>` (none for a holder of another form). */
function depositOf(holder: string): string | undefined {
  const at = holder.indexOf('#');
  return at > 0 ? holder.slice(0, at) : undefined;
}

/** A wait as its attribute holds it, if it holds one. */
function waiterOf(depositId: string, value: unknown): LeaseWaiter | undefined {
  const parsed = WaitEntry.safeParse(value);
  if (!parsed.success) return undefined;
  const { trace, ...entry } = parsed.data;
  return { depositId, ...entry, ...(trace === undefined ? {} : { trace }) };
}

const WaitEntry = z.object({
  step: DepositStep.exclude(['completed']),
  version: z.number().int().nonnegative(),
  since: z.number(),
  trace: z.string().optional(),
});
