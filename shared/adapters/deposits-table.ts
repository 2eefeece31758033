/**
 * The deposits table's items of a connection: its beneficiary claims (its lease is
 * `connection-lease-items.ts`; keys and items in `deposits-table-items.ts`). A deposit's
 * own items are in `deposit-items.ts`. Every access here is by key; the queries of the table's
 * indexes are in `deposits-indexes.ts`.
 */
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally, conditionallyOwn, sameItem } from '#shared/adapters/dynamodb';
import type { BeneficiaryClaim } from '#shared/deposits/model/deposit';
import type { BeneficiaryClaims } from '#shared/deposits/ports/connection';
import { claimTtlSeconds, getItem, keys, type Table } from './deposits-table-items.ts';

/** Beneficiary claims: one creator per connection and wallet account. */
export class BeneficiaryClaimItems implements BeneficiaryClaims {
  constructor(private readonly table: Table) {}

  get(ownerKey: string, walletAccountId: string) {
    return getItem<BeneficiaryClaim>(this.table, keys.beneficiary(ownerKey, walletAccountId));
  }

  claim(claim: BeneficiaryClaim, staleBefore: number): Promise<boolean> {
    return this.put(claim, {
      // Free, or a creation claim whose holder went quiet; never over a created beneficiary.
      ConditionExpression: 'attribute_not_exists(pk) OR (#state = :creating AND claimedAt < :stale)',
      ExpressionAttributeValues: { ':creating': 'creating', ':stale': staleBefore },
    });
  }

  update(claim: BeneficiaryClaim): Promise<boolean> {
    const ownClaim = 'depositId = :deposit AND #state = :creating';
    if (claim.state === 'creating') {
      // Still its own only while not given up (`release`): a late step of a deposit that failed or
      // was cancelled must not make the claim live again, nor go on to create.
      return this.put(claim, {
        ConditionExpression: `${ownClaim} AND claimedAt > :free`,
        ExpressionAttributeValues: { ':deposit': claim.depositId, ':creating': 'creating', ':free': 0 },
      });
    }
    // Created: a fact about the bank, recorded whatever became of the deposit.
    if (claim.beneficiaryId === undefined) {
      return this.put(claim, {
        ConditionExpression: ownClaim,
        ExpressionAttributeValues: { ':deposit': claim.depositId, ':creating': 'creating' },
      });
    }
    // With its id: also the completion of a created beneficiary's record, by whoever looked it up.
    return this.put(claim, {
      ConditionExpression: `(${ownClaim}) OR (#state = :created AND attribute_not_exists(beneficiaryId))`,
      ExpressionAttributeValues: {
        ':deposit': claim.depositId,
        ':creating': 'creating',
        ':created': 'created',
      },
    });
  }

  refresh(ownerKey: string, walletAccountId: string, depositId: string, claimedAt: number): Promise<boolean> {
    return conditionallyOwn(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.beneficiary(ownerKey, walletAccountId),
          UpdateExpression: 'SET claimedAt = :at, expiresAt = :expires',
          // Never a claim given up (`release`): it is no longer its former holder's.
          ConditionExpression:
            'depositId = :deposit AND #state = :creating AND claimedAt < :at AND claimedAt > :free',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':deposit': depositId,
            ':creating': 'creating',
            ':at': claimedAt,
            ':free': 0,
            ':expires': Math.floor(claimedAt / 1000) + claimTtlSeconds,
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
      // Refreshed to this very time already: this refresh, sent again after its answer was lost.
      (found) => found.depositId === depositId && found.state === 'creating' && found.claimedAt === claimedAt,
    );
  }

  async markUsed(ownerKey: string, walletAccountId: string): Promise<void> {
    await conditionally(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.beneficiary(ownerKey, walletAccountId),
          // Used again: kept another whole time to live.
          UpdateExpression: 'SET used = :true, expiresAt = :expires',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: {
            ':true': true,
            ':expires': Math.floor(Date.now() / 1000) + claimTtlSeconds,
          },
        }),
      ),
    );
  }

  async coolDown(ownerKey: string, walletAccountId: string, beneficiaryId: string, until: number) {
    await conditionally(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.beneficiary(ownerKey, walletAccountId),
          UpdateExpression: 'SET cooldownUntil = :until',
          ConditionExpression:
            '#state = :created AND beneficiaryId = :beneficiary AND (attribute_not_exists(cooldownUntil) OR cooldownUntil < :until)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':created': 'created',
            ':beneficiary': beneficiaryId,
            ':until': until,
          },
        }),
      ),
    );
  }

  async forget(ownerKey: string, walletAccountId: string, beneficiaryId?: string): Promise<void> {
    await conditionally(
      this.table.client.send(
        new DeleteCommand({
          TableName: this.table.tableName,
          Key: keys.beneficiary(ownerKey, walletAccountId),
          ...(beneficiaryId === undefined
            ? {
                ConditionExpression: '#state = :created AND attribute_not_exists(beneficiaryId)',
                ExpressionAttributeValues: { ':created': 'created' },
              }
            : {
                ConditionExpression: '#state = :created AND beneficiaryId = :beneficiary',
                ExpressionAttributeValues: { ':created': 'created', ':beneficiary': beneficiaryId },
              }),
          ExpressionAttributeNames: { '#state': 'state' },
        }),
      ),
    );
  }

  async release(ownerKey: string, walletAccountId: string, depositId: string): Promise<void> {
    // Left claimable at once (stale since the epoch), with what fitted the wallet before a creation
    // it may have sent; the item's time to live is unchanged.
    await conditionally(
      this.table.client.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.beneficiary(ownerKey, walletAccountId),
          UpdateExpression: 'SET claimedAt = :free',
          ConditionExpression: 'depositId = :deposit AND #state = :creating',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':deposit': depositId, ':creating': 'creating', ':free': 0 },
        }),
      ),
    );
  }

  private put(
    claim: BeneficiaryClaim,
    condition: { ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> },
  ) {
    const Item = {
      ...keys.beneficiary(claim.ownerKey, claim.walletAccountId),
      ...claim,
      expiresAt: Math.floor(claim.claimedAt / 1000) + claimTtlSeconds,
    };
    return conditionallyOwn(
      this.table.client.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item,
          ExpressionAttributeNames: { '#state': 'state' },
          ...condition,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
      // The claim is this very one already: this write, sent again after its answer was lost.
      (found) => sameItem(found, Item),
    );
  }
}
