/**
 * Vitest global setup: starts the real local stack once per run (DynamoDB Local on a free port, the
 * handlers behind the local HTTP gateway) and gives its URLs to the test files.
 */
import type { TestProject } from 'vitest/node';
import { startLocalStack } from '#infra/local/stack';

declare module 'vitest' {
  export interface ProvidedContext {
    sandboxUrl: string;
    dynamodbEndpoint: string;
  }
}

/** Settings the tests rely on: short async delay and fault timeout, quiet logs. */
export const testEnv = {
  SANDBOX_APP_SECRET: 'sandbox-local-app-secret',
  SANDBOX_ASYNC_DELAY_MS: '400',
  SANDBOX_TIMEOUT_MS: '1500',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
};

export default async function setup(project: TestProject) {
  const stack = await startLocalStack({ sandboxPort: 0, env: testEnv });
  project.provide('sandboxUrl', stack.sandboxUrl);
  project.provide('dynamodbEndpoint', stack.dynamodbEndpoint);
  return () => stack.stop();
}
