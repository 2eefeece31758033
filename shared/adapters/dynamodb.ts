/** DynamoDB's conditional writes, as the table adapters use them. */
import { isDeepStrictEqual } from 'node:util';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';

/** Awaits a conditional write: true if it was written, false if its condition did not hold. */
export async function conditionally(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Awaits a conditional write sent with `ReturnValues` (the item's attributes as they were, or those
 * it changed): them, or undefined if its condition did not hold.
 */
export async function conditionallyReturning(
  write: Promise<{ Attributes?: Record<string, unknown> | undefined }>,
): Promise<Record<string, unknown> | undefined> {
  try {
    return (await write).Attributes ?? {};
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/**
 * Awaits a conditional write sent with `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`: true if it
 * was written, or if the item its condition failed against is, by `isOwn`, this very write. The SDK
 * sends a write again when its answer was lost (a timeout, a reset connection); the retry's condition
 * then fails against the write that landed, which was the writer's own, and must not be taken for
 * another writer's.
 */
export async function conditionallyOwn(
  write: Promise<unknown>,
  isOwn: (found: Record<string, unknown>) => boolean,
): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const found = failedAgainst(error);
    return found !== undefined && isOwn(found);
  }
}

/** The item a condition failed against (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`), if any. */
export function failedAgainst(error: ConditionalCheckFailedException): Record<string, unknown> | undefined {
  return error.Item ? unmarshall(error.Item) : undefined;
}

/** Whether an item read back is exactly `item` as the document client writes it (undefined left out). */
export function sameItem(found: Record<string, unknown>, item: Record<string, unknown>): boolean {
  return isDeepStrictEqual(found, unmarshall(marshall(item, { removeUndefinedValues: true })));
}
