/**
 * The bank memory on the deposits table: one item per connection and user (`BANK#<owner>#<reader>`)
 * with the bank's metadata and until when it holds. Freshness is read from `until` (DynamoDB's TTL, which removes
 * the item some time later, is no timer).
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { BankMemory, MemoryOwner } from '#shared/deposits/ports/connection';
import type { AccountsMetadata } from '#shared/provider/interface/schemas';
import { bankTtlAfterUntilSeconds, getItem, keys, type Table } from './deposits-table-items.ts';

interface BankItem {
  metadata: AccountsMetadata;
  until: number;
}

export class BankMemoryItems implements BankMemory {
  constructor(private readonly table: Table) {}

  async recall(owner: MemoryOwner, now: number): Promise<AccountsMetadata | undefined> {
    const item = await getItem<BankItem>(this.table, keys.bank(owner.ownerKey, owner.readerKey));
    return item && item.until > now ? item.metadata : undefined;
  }

  async remember(owner: MemoryOwner, metadata: AccountsMetadata, until: number): Promise<void> {
    await this.table.client.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: {
          ...keys.bank(owner.ownerKey, owner.readerKey),
          metadata,
          until,
          expiresAt: Math.ceil(until / 1000) + bankTtlAfterUntilSeconds,
        },
      }),
    );
  }

  async forget(owner: MemoryOwner): Promise<void> {
    await this.table.client.send(
      new DeleteCommand({
        TableName: this.table.tableName,
        Key: keys.bank(owner.ownerKey, owner.readerKey),
      }),
    );
  }
}
