/**
 * DynamoDB faults where the chaos run meets them: a local stack of this file's own whose step workers
 * run in child processes (`stepWorkers: 'child-process'`), with faults of every kind armed for one
 * user's connection (`POST /_local/dynamodb-faults`), answered by the SDK client's middleware in those
 * processes. Each is proven to have gone off (the stack counts each call it answered, as told back by
 * the processes), and the user's payment source and deposit still keep the promise: ready, then done
 * with one transfer. `dynamodb-faults.ts` plans them in the chaos run; test/e2e/dynamodb-faults.test.ts
 * proves each kind against the adapters, one at a time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDbFaultKind, DynamoDbFaultReport } from '#infra/local/dynamodb-faults';
import { type LocalStack, startLocalStack } from '#infra/local/stack';
import { DYNAMODB_MAX_ATTEMPTS } from '#shared/adapters/clients';
import { DepositsClient } from '#shared/deposits-api/client';
import { eventually } from '../support/eventually.ts';
import { TEST_SWEEP_INTERVAL_MS, testEnv } from '../support/local-stack.ts';
import { appSecret, createUser, post, transfersOf } from '../support/own-stack.ts';
import { sharedDynamoDb } from '../support/shared-dynamodb.ts';

let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack({
    ...sharedDynamoDb(),
    sandboxPort: 0,
    depositsPort: 0,
    operatorPort: 0,
    // Longer than a step's try takes on loaded cores (as Lambda's is longer than its function's
    // timeout): a shorter one hands a slow try's message to a second worker meanwhile, and each such
    // receive spends one of the message's five tries, which the armed faults need.
    visibilityTimeoutSeconds: 5,
    sweepIntervalMs: TEST_SWEEP_INTERVAL_MS,
    stepWorkers: 'child-process',
    env: testEnv,
  });
});

afterAll(async () => {
  await stack?.stop();
});

async function report() {
  const response = await fetch(`${stack.depositsUrl}/_local/dynamodb-faults`);
  return (await response.json()) as DynamoDbFaultReport;
}

describe('DynamoDB faults in the step workers’ processes', () => {
  it('every kind goes off on the connection’s calls and is counted; its source is ready and its deposit done, once', async () => {
    // prepare: a user at a bank with a cool-down (claim, lease and shared wake-up writes all happen),
    // each kind armed for its connection: some retried away by the SDK, some seen by the step
    const user = await createUser(stack, 'SANDBOX_COOLDOWN_FAST');
    const armed: [DynamoDbFaultKind, number][] = [
      ['throttling', 2],
      ['throughput-exceeded', 1],
      ['internal-error', DYNAMODB_MAX_ATTEMPTS],
      ['transaction-conflict', 1],
      ['lost-claim-answer', 1],
      ['lost-lease-answer', DYNAMODB_MAX_ATTEMPTS],
      ['lost-wake-answer', 2],
    ];
    for (const [kind, times] of armed) {
      const answer = await post(`${stack.depositsUrl}/_local/dynamodb-faults`, {
        accessToken: user.accessToken,
        kind,
        times,
      });
      expect(answer.status).toBe(200);
    }
    const client = new DepositsClient({ baseUrl: stack.depositsUrl, retries: 0, timeoutMs: 30_000 });
    const connection = { accessToken: user.accessToken, userSecret: user.userSecret, appSecret };

    // act: the source prepares the connection (it arms the shared wake-up, and takes it once ready),
    // then a deposit goes through
    const started = await client.createSource(connection);
    expect(started.status).toBe(202);
    const source = await eventually(async () => {
      const now = (await client.getSource(connection, started.body.sourceID)).body;
      return now.status === 'ready' || now.status === 'failed' ? now : undefined;
    }, 60_000);
    const created = await client.create(connection, { amount: 25, senderID: user.accountId });
    expect(created.status).toBe(202);
    const deposit = await eventually(async () => {
      const now = (await client.get(connection, created.body.operationID)).body;
      return now.status === 'done' || now.status === 'failed' ? now : undefined;
    }, 60_000);

    // assess: every rule used up, each call counted by the stack; the promise kept
    expect(source, 'the source (its failure, if it failed)').toMatchObject({ status: 'ready' });
    expect(deposit, 'the deposit (its failure, if it failed)').toMatchObject({ status: 'done' });
    expect(await transfersOf(stack, user)).toHaveLength(1);
    const after = await report();
    expect(after.fired).toEqual(Object.fromEntries(armed));
    expect(after.armed).toBe(0);
  });
});
