/** DynamoDB's conditional writes, as the table adapters use them. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

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
