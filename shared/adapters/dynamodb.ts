/** The DynamoDB document client, created once per process. */
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsConfig } from '#shared/config';

const { DYNAMODB_ENDPOINT } = awsConfig();

export const dynamodb = DynamoDBDocumentClient.from(
  new DynamoDBClient(DYNAMODB_ENDPOINT ? { endpoint: DYNAMODB_ENDPOINT } : {}),
  { marshallOptions: { removeUndefinedValues: true } },
);

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
