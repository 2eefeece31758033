/**
 * Vitest global setup: starts the real local stack once per run (DynamoDB Local, fauxqs, the local
 * scheduler, both gateways, the queue pollers) plus a webhook receiver, and gives their URLs to the
 * test files.
 */
import type { TestProject } from 'vitest/node';
import { startLocalStack } from '#infra/local/stack';
import { type DialectName, dialectNames } from '#shared/provider/interface/dialects';
import { keyedDigests } from '#shared/secrets';
import { startWebhookReceiver } from './webhook-receiver.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    sandboxUrl: string;
    depositsUrl: string;
    operatorUrl: string;
    operatorToken: string;
    dynamodbEndpoint: string;
    sqsEndpoint: string;
    schedulerEndpoint: string;
    webhookUrl: string;
    /** The secret the stack signs its webhooks with (the receiver's current one). */
    webhookSecret: string;
    queueUrls: Record<string, { url: string; dlqUrl: string }>;
    /** The dialect the stack's provider client speaks: `dapi-v2` in the `e2e-v2` project. */
    providerDialect: DialectName;
  }
}

/** Settings the tests rely on: short delays, so every path (schedules included) runs in seconds. */
export const testEnv = {
  SANDBOX_APP_SECRET: 'sandbox-local-app-secret',
  SANDBOX_ASYNC_DELAY_MS: '400',
  SANDBOX_TIMEOUT_MS: '1500',
  // The fast cool-down bank (3.6 s) then goes through the schedule path.
  LONG_WAIT_SECONDS: '2',
  INPUT_TTL_SECONDS: '6',
  STALL_AFTER_SECONDS: '3',
  PROVIDER_TIMEOUT_MS: '1000',
  MAX_RETRIES: '6',
  // Webhook retries come at once (the backoff itself is a unit test), so the DLQ is seconds away.
  WEBHOOK_RETRY_BASE_SECONDS: '0',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
  // A fixed owner key (base64 of 39 bytes), so that a test can key a token as the stack does.
  OWNER_KEY: Buffer.from('the owner key of the tests local stacks').toString('base64'),
};

/** The keys the tests' stacks give a token or user secret (a deposit's `ownerKey`, `readerKey`). */
export const testOwnerDigests = keyedDigests(Buffer.from(testEnv.OWNER_KEY, 'base64'));

export default async function setup(project: TestProject) {
  const providerDialect: DialectName = project.name === 'e2e-v2' ? 'dapi-v2' : dialectNames[0];
  const webhook = await startWebhookReceiver();
  const stack = await startLocalStack({
    sandboxPort: 0,
    depositsPort: 0,
    operatorPort: 0,
    visibilityTimeoutSeconds: 2,
    sweepIntervalMs: 1_000,
    env: {
      ...testEnv,
      PROVIDER_DIALECT: providerDialect,
      // v2 sends no `sync`: the provider holds each call, at most this long (well within the client's 1 s),
      // then answers `initialized`; a bank that takes longer is read back, as at the provider.
      ...(providerDialect === 'dapi-v2' ? { SANDBOX_HOLD_MS: '500' } : {}),
      WEBHOOK_URL: `${webhook.url}/hooks`,
      WEBHOOK_SECRET: webhook.secret,
      // The shared stack signs as during a rotation of its secret: each delivery with both.
      WEBHOOK_PREVIOUS_SECRET: webhook.previousSecret,
    },
  });
  project.provide('sandboxUrl', stack.sandboxUrl);
  project.provide('depositsUrl', stack.depositsUrl);
  project.provide('operatorUrl', stack.operatorUrl);
  project.provide('operatorToken', stack.operatorToken);
  project.provide('dynamodbEndpoint', stack.dynamodbEndpoint);
  project.provide('sqsEndpoint', stack.sqsEndpoint);
  project.provide('schedulerEndpoint', stack.schedulerEndpoint);
  project.provide('webhookUrl', webhook.url);
  project.provide('webhookSecret', webhook.secret);
  project.provide('queueUrls', stack.queueUrls);
  project.provide('providerDialect', providerDialect);
  return async () => {
    await stack.stop();
    await webhook.stop();
  };
}
