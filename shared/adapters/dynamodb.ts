/** The DynamoDB document client, created once per process. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsConfig } from '#shared/config';

const { DYNAMODB_ENDPOINT } = awsConfig();

export const dynamodb = DynamoDBDocumentClient.from(
  new DynamoDBClient(DYNAMODB_ENDPOINT ? { endpoint: DYNAMODB_ENDPOINT } : {}),
  { marshallOptions: { removeUndefinedValues: true } },
);
