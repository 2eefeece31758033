/**
 * The DynamoDB Local of this `npm test` run: `test/run.ts` starts one for all its phases and names
 * it in `TEST_DYNAMODB_ENDPOINT`, and each stack the tests start makes its tables there, under names
 * of its own (`startLocalStack`'s `dynamodb` option), instead of starting a JVM of its own: some 3 s
 * of a core each, a dozen times a run. Run alone (`npx vitest`), a stack starts its own.
 */
export function sharedDynamoDb(): { dynamodb?: { endpoint: string } } {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  return endpoint ? { dynamodb: { endpoint } } : {};
}
