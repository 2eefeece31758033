/**
 * The DynamoDB Local of this wave of `npm test`: `test/run.ts` starts one for each wave with stacks and
 * names it in `TEST_DYNAMODB_ENDPOINT`, and each stack the tests start makes its tables there, under
 * names of its own (`startLocalStack`'s `dynamodb` option), instead of starting a JVM of its own:
 * some 3 s of a core each, seven times in the last wave. Run alone (`npx vitest`), a stack starts its
 * own.
 */
export function sharedDynamoDb(): { dynamodb?: { endpoint: string } } {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  return endpoint ? { dynamodb: { endpoint } } : {};
}
