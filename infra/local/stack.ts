/**
 * The local stack: DynamoDB Local with the topology's tables, and the handlers served behind a local
 * HTTP API. `npm start` and the test setup both start it through here.
 */
import { type ApiSpec, sandboxApi, type TableSpec, tables } from '#infra/topology';
import { createTables, localCredentials, startDynamoDbLocal } from './dynamodb-local.ts';
import { startGateway } from './gateway.ts';

export interface LocalStackOptions {
  host?: string;
  sandboxPort?: number;
  /** Extra environment for the handlers (tests lower delays and timeouts here). */
  env?: Record<string, string>;
}

export interface LocalStack {
  sandboxUrl: string;
  dynamodbEndpoint: string;
  stop(): Promise<void>;
}

function tablesOf(api: ApiSpec): { name: string; spec: TableSpec }[] {
  return api.tables.map((key) => ({ name: tables[key].localName, spec: tables[key] }));
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const host = options.host ?? '127.0.0.1';
  // Lambda runs Node 22; the SDK's warning about Node 20 is noise on a developer machine.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const dynamodb = await startDynamoDbLocal();
  try {
    // The handlers read their configuration when first imported, which startGateway does below.
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
      DYNAMODB_ENDPOINT: dynamodb.endpoint,
      ...Object.fromEntries(Object.values(tables).map((table) => [table.envVar, table.localName])),
      ...options.env,
    });
    await createTables(dynamodb.endpoint, tablesOf(sandboxApi));
    const sandbox = await startGateway(sandboxApi, host, options.sandboxPort ?? 3001);
    return {
      sandboxUrl: sandbox.url,
      dynamodbEndpoint: dynamodb.endpoint,
      async stop() {
        await sandbox.close();
        await dynamodb.stop();
      },
    };
  } catch (error) {
    await dynamodb.stop();
    throw error;
  }
}
