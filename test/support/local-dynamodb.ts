/**
 * A document client of the e2e project's DynamoDB Local (its endpoint from the global setup,
 * `local-stack.ts`), for tests that read or write the tables' items directly: `localDynamoDb`,
 * destroyed after the file (or the describe block) that made it; `unmanagedLocalDynamoDb`, for a
 * caller inside a test, which destroys it itself.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, type TranslateConfig } from '@aws-sdk/lib-dynamodb';
import { afterAll, inject } from 'vitest';

export function unmanagedLocalDynamoDb(translate?: TranslateConfig): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: inject('dynamodbEndpoint'),
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    translate,
  );
}

export function localDynamoDb(translate?: TranslateConfig): DynamoDBDocumentClient {
  const client = unmanagedLocalDynamoDb(translate);
  afterAll(() => client.destroy());
  return client;
}
