/**
 * The bench's counting, checked against what really went over the wire (not the speed): the local
 * stack runs in this process with its provider (PROVIDER_BASE_URL) and DynamoDB (DYNAMODB_ENDPOINT)
 * behind counting HTTP proxies, and a first and a repeat deposit's counts (test/bench/counting.ts,
 * at the provider client and in the AWS SDK middleware) must equal the requests the proxies saw:
 * each provider path in order, each DynamoDB operation per table.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '#infra/local/stack';
import { tables } from '#shared/topology';
import { forward } from '../support/forward.ts';
import { queueDesignCost, total } from './cost.ts';
import { installCounters } from './counting.ts';
import { appSecret, createUser } from './flow.ts';
import { countedDeposit } from './performance.ts';

interface Seen {
  authorization: string;
  path: string;
  /** DynamoDB: `Operation table`. */
  operation?: string;
}

/** An HTTP proxy to `target` (set once the stack has started) that notes each request. */
async function countingProxy() {
  const seen: Seen[] = [];
  const proxy = { target: '', seen, url: '', server: undefined as Server | undefined };
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const amzTarget = String(incoming.headers['x-amz-target'] ?? '');
      let operation: string | undefined;
      if (amzTarget) {
        const input = JSON.parse(body.toString('utf8') || '{}') as {
          TableName?: string;
          RequestItems?: Record<string, unknown>;
          TransactItems?: Record<string, { TableName?: string }>[];
        };
        const first = input.TransactItems?.[0];
        const table =
          input.TableName ??
          Object.keys(input.RequestItems ?? {})[0] ??
          (first && Object.values(first)[0]?.TableName) ??
          '?';
        operation = `${amzTarget.split('.').pop()} ${table}`;
      }
      seen.push({
        authorization: String(incoming.headers.authorization ?? ''),
        path: incoming.url ?? '',
        ...(operation ? { operation } : {}),
      });
      forward(incoming, outgoing, new URL(proxy.target), body);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const address = server.address();
  proxy.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  proxy.server = server;
  return proxy;
}

let stack: LocalStack;
let provider: Awaited<ReturnType<typeof countingProxy>>;
let dynamodb: Awaited<ReturnType<typeof countingProxy>>;

beforeAll(async () => {
  installCounters();
  provider = await countingProxy();
  dynamodb = await countingProxy();
  stack = await startLocalStack({
    sandboxPort: 0,
    depositsPort: 0,
    operatorPort: 0,
    // No sweep during the test: its reads are no deposit's.
    sweepIntervalMs: 3_600_000,
    env: {
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      SANDBOX_APP_SECRET: appSecret,
      PROVIDER_BASE_URL: provider.url,
      DYNAMODB_ENDPOINT: dynamodb.url,
    },
  });
  provider.target = stack.sandboxUrl;
  dynamodb.target = stack.dynamodbEndpoint;
});

afterAll(async () => {
  await stack?.stop();
  provider?.server?.close();
  dynamodb?.server?.close();
});

/** The DynamoDB requests the proxy saw, per `Operation table`. */
function byOperation(seen: Seen[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { operation } of seen) if (operation) counts[operation] = (counts[operation] ?? 0) + 1;
  return counts;
}

describe("the bench's counters", () => {
  it('count the provider calls and the table requests a first and a repeat deposit really made', async () => {
    const user = await createUser(stack, 'SANDBOX_BENEFICIARY');
    for (const amount of [10, 11]) {
      const providerBefore = provider.seen.length;
      const dynamodbBefore = dynamodb.seen.length;
      const counted = await countedDeposit(stack, user, amount);
      expect(counted.status).toBe('done');

      const providerSeen = provider.seen
        .slice(providerBefore)
        .filter((seen) => seen.authorization === `Bearer ${user.accessToken}`)
        .map((seen) => seen.path);
      expect(counted.providerPaths).toEqual(providerSeen);
      expect(counted.providerPaths).toContain('/v1/payment/transfer/create');
      expect(Object.values(counted.counts.provider).reduce((sum, n) => sum + n, 0)).toBe(providerSeen.length);

      const wire = byOperation(dynamodb.seen.slice(dynamodbBefore));
      const counters = Object.fromEntries(
        Object.entries(counted.counts.aws)
          .filter(([key]) => key.startsWith('DynamoDB '))
          .map(([key, count]) => [key.replace('DynamoDB ', ''), count.requests]),
      );
      expect(counters).toEqual(wire);
      const depositWrites = Object.entries(counted.counts.aws).filter(
        ([key]) => key.endsWith(` ${tables.deposits.localName}`) && /Put|Update|Transact/.test(key),
      );
      expect(depositWrites.length).toBeGreaterThan(0);
      for (const [key, count] of depositWrites)
        expect(count.writeUnits, key).toBeGreaterThanOrEqual(count.requests);

      // Each step ran as an invocation with a duration, the credentials were opened, the API was
      // called; the repeat (its bank and beneficiary remembered) starts at the transfer.
      const steps = amount === 10 ? ['ensure-beneficiary', 'resolve-bank', 'transfer'] : ['transfer'];
      expect(Object.keys(counted.counts.invocations).sort()).toEqual(expect.arrayContaining(steps));
      if (amount !== 10) expect(Object.keys(counted.counts.invocations)).not.toContain('resolve-bank');
      for (const step of Object.values(counted.counts.invocations)) expect(step.meanMs).toBeGreaterThan(0);
      expect(counted.counts.keys.seal).toBe(1);
      expect(counted.counts.keys.open).toBeGreaterThanOrEqual(1);
      expect(counted.api['/v1/deposits/create']?.count).toBe(1);
      expect(total(queueDesignCost(counted))).toBeGreaterThan(0);
    }
  });
});
