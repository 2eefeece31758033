/**
 * The sandbox table's rules that span items, each one transaction: a new user (connection, accounts and
 * cards, none existing yet), a beneficiary (unique IBAN per user, with the operation and the call that
 * created it), and a transfer
 * (debit never below zero, the transfer record, first use of the beneficiary, with the operation). A
 * cancelled transaction becomes the `StoreConflict` of its first failed condition.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import {
  type AccountRecord,
  type BeneficiaryCreationCall,
  type BeneficiaryRecord,
  type CardRecord,
  type ConnectionRecord,
  type OperationPrecondition,
  type OperationRecord,
  StoreConflict,
  type TransferRecord,
} from '#shared/sandbox/store';
import { keys, operationCondition, operationItem, userItem } from './sandbox-table-items.ts';

export type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

/** What each item's failed condition means, by position (undefined: the item has no condition). */
export type ConflictReasons = (StoreConflict['reason'] | undefined)[];

export function newUserItems(
  tableName: string,
  connection: ConnectionRecord,
  accounts: AccountRecord[],
  cards: CardRecord[],
): TransactItems {
  const at = connection.createdAt;
  const items = [
    userItem(keys.connection(connection.id), connection, at),
    ...accounts.map((account) => userItem(keys.account(account.connectionId, account.id), account, at)),
    ...cards.map((card) => userItem(keys.card(card.connectionId, card.id), card, at)),
  ];
  return items.map((Item) => ({
    Put: { TableName: tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' },
  }));
}

export function beneficiaryItems(
  tableName: string,
  beneficiary: BeneficiaryRecord,
  operation: OperationRecord,
  precondition: OperationPrecondition,
  call: BeneficiaryCreationCall,
): { items: TransactItems; reasons: ConflictReasons } {
  const at = beneficiary.createdAt;
  const { connectionId } = beneficiary;
  const items: TransactItems = [
    {
      Put: {
        TableName: tableName,
        Item: userItem(keys.iban(connectionId, beneficiary.iban), { beneficiaryId: beneficiary.id }, at),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: userItem(keys.beneficiary(connectionId, beneficiary.id), beneficiary, at),
      },
    },
    { Put: { TableName: tableName, Item: operationItem(operation), ...operationCondition(precondition) } },
    {
      Put: { TableName: tableName, Item: userItem(keys.creationCall(connectionId, call.id), call, call.at) },
    },
  ];
  return { items, reasons: ['duplicate_beneficiary', undefined, 'operation', undefined] };
}

export function transferItems(
  tableName: string,
  transfer: TransferRecord,
  operation: OperationRecord,
  precondition: OperationPrecondition,
): { items: TransactItems; reasons: ConflictReasons } {
  const at = transfer.createdAt;
  const beneficiaryId = transfer.receiver.beneficiaryId;
  const items: TransactItems = [
    {
      Update: {
        TableName: tableName,
        Key: keys.account(transfer.connectionId, transfer.senderId),
        UpdateExpression: 'SET balanceMinor = balanceMinor - :amount',
        ConditionExpression: 'balanceMinor >= :amount',
        ExpressionAttributeValues: { ':amount': transfer.amountMinor },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: userItem(keys.transfer(transfer.connectionId, transfer.reference), transfer, at),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    { Put: { TableName: tableName, Item: operationItem(operation), ...operationCondition(precondition) } },
    ...(beneficiaryId === undefined
      ? []
      : [
          {
            Update: {
              TableName: tableName,
              Key: keys.beneficiary(transfer.connectionId, beneficiaryId),
              UpdateExpression: 'SET firstTransferAt = if_not_exists(firstTransferAt, :at)',
              ExpressionAttributeValues: { ':at': at },
            },
          },
        ]),
  ];
  return { items, reasons: ['insufficient_balance', 'operation', 'operation'] };
}

/**
 * The conflict a cancelled transaction stands for: the reason of the first item whose condition failed,
 * or `contention` when another transaction touched the same items at the same moment.
 */
export function conflictOf(error: unknown, reasons: ConflictReasons): StoreConflict | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  const cancellations = error.CancellationReasons ?? [];
  const index = cancellations.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
  const reason =
    index >= 0
      ? reasons[index]
      : cancellations.some((cancelled) => cancelled.Code === 'TransactionConflict')
        ? 'contention'
        : undefined;
  return reason ? new StoreConflict(reason) : undefined;
}
