/**
 * What deposits cost in calls, counted where the calls leave this process (the local stack runs
 * every handler in the bench's own process), never estimated:
 *
 *   provider   each HTTP call of the provider client (ProviderClient's request method, wrapped on
 *              its prototype), by path, and in order per connection (its access token)
 *   aws        each AWS SDK request of the handlers' clients (middleware registered through
 *              `onClientCreated` in shared/adapters/clients.ts), by service, operation and table;
 *              DynamoDB requests ask for their consumed capacity (ReturnConsumedCapacity TOTAL)
 *   lambda     each batch the local queue pollers hand a step consumer (a Lambda invocation in
 *              AWS), and its duration: from the receive that got it to the delete that ends it
 *              (the local SQS client's send, wrapped on SQSClient's prototype); these receives and
 *              deletes are the SQS requests Lambda's event source mapping makes in AWS
 *   keys       each seal and open of the credential vault, and the data keys it generated and
 *              unwrapped for them (a KMS GenerateDataKey or Decrypt each in AWS; the vault keeps them)
 *
 * Counts go to every open `Tally` (a window: a deposit, a bank's deposits, a whole phase).
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type MadeClient, onClientCreated } from '#shared/adapters/clients';
import { CredentialVault } from '#shared/adapters/credential-vault';
import { LocalDataKeys } from '#shared/adapters/credentials-key';
import { ProviderClient } from '#shared/provider/client';
import { tables } from '#shared/topology';

export interface AwsCount {
  requests: number;
  /** Capacity units as DynamoDB reported them (requests that failed their condition: 1 each). */
  readUnits: number;
  writeUnits: number;
  /** Requests refused (a condition that did not hold, a transaction cancelled). */
  refused: number;
}

export interface Tally {
  /** Provider calls by path. */
  provider: Record<string, number>;
  /** Time spent waiting on the provider and on the orchestrator's AWS requests (summed), in ms. */
  waited: { providerMs: number; awsMs: number };
  /** AWS requests by `Service Operation` (DynamoDB: `DynamoDB Operation table`). */
  aws: Record<string, AwsCount>;
  /** Step consumer invocations by queue name, with each one's duration in ms. */
  invocations: Record<string, number[]>;
  /** The local queue pollers' SQS requests (the event source mapping's in AWS). */
  polling: { receives: number; deletes: number };
  /** Credential vault operations: seal (GenerateDataKey in AWS), open (Decrypt). */
  keys: { seal: number; open: number; generate: number; unwrap: number };
}

const open = new Set<Tally>();
/** Every provider path each connection called, in order (by access token). */
const byConnection = new Map<string, string[]>();

export function emptyTally(): Tally {
  return {
    provider: {},
    waited: { providerMs: 0, awsMs: 0 },
    aws: {},
    invocations: {},
    polling: { receives: 0, deletes: 0 },
    keys: { seal: 0, open: 0, generate: 0, unwrap: 0 },
  };
}

/** Counts into a new tally until `close`. */
export function openTally(): Tally & { close(): Tally } {
  const tally = emptyTally();
  open.add(tally);
  return Object.assign(tally, {
    close() {
      open.delete(tally);
      return tally;
    },
  });
}

/** The provider paths this connection has called so far, in order. */
export function providerCallsOf(accessToken: string): string[] {
  return [...(byConnection.get(accessToken) ?? [])];
}

function each(update: (tally: Tally) => void) {
  for (const tally of open) update(tally);
}

const readOperations = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
/** The document client's command names, as the DynamoDB operations they are. */
const documentOperations: Record<string, string> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchGet: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem',
  TransactGet: 'TransactGetItems',
  TransactWrite: 'TransactWriteItems',
};

type Input = Record<string, unknown> & {
  TableName?: string;
  RequestItems?: Record<string, unknown>;
  TransactItems?: Record<string, { TableName?: string }>[];
};

function tableOf(input: Input): string {
  if (input.TableName) return input.TableName;
  if (input.RequestItems) return Object.keys(input.RequestItems)[0] ?? '?';
  const first = input.TransactItems?.[0];
  return (first && Object.values(first)[0]?.TableName) ?? '?';
}

type Capacity = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };

function record(
  key: string,
  read: boolean,
  output: { ConsumedCapacity?: Capacity | Capacity[] } | undefined,
  refused: boolean,
) {
  const capacities = output?.ConsumedCapacity;
  const list = capacities === undefined ? [] : Array.isArray(capacities) ? capacities : [capacities];
  let readUnits = 0;
  let writeUnits = 0;
  for (const capacity of list) {
    readUnits += capacity.ReadCapacityUnits ?? (read ? (capacity.CapacityUnits ?? 0) : 0);
    writeUnits += capacity.WriteCapacityUnits ?? (read ? 0 : (capacity.CapacityUnits ?? 0));
  }
  // A refused write still costs its units; the refusal carries no capacity: at least one.
  if (refused && list.length === 0) {
    if (read) readUnits += 1;
    else writeUnits += 1;
  }
  each((tally) => {
    const count = tally.aws[key] ?? { requests: 0, readUnits: 0, writeUnits: 0, refused: 0 };
    tally.aws[key] = count;
    count.requests += 1;
    count.readUnits += readUnits;
    count.writeUnits += writeUnits;
    if (refused) count.refused += 1;
  });
}

type Middleware = (
  next: (args: { input: Input }) => Promise<{ output: unknown }>,
  context: { commandName?: string },
) => (args: { input: Input }) => Promise<{ output: unknown }>;

let installed = false;

/** Installs every counter; once per process, before the local stack starts. */
export function installCounters(): void {
  if (installed) return;
  installed = true;

  onClientCreated((client: MadeClient, service) => {
    const middleware: Middleware = (next, context) => async (args) => {
      const command = (context.commandName ?? 'Unknown').replace(/Command$/, '');
      const operation = service === 'DynamoDB' ? (documentOperations[command] ?? command) : command;
      const read = readOperations.has(operation);
      const key =
        service === 'DynamoDB' ? `DynamoDB ${operation} ${tableOf(args.input)}` : `${service} ${operation}`;
      if (service === 'DynamoDB') args.input.ReturnConsumedCapacity ??= 'TOTAL';
      const started = performance.now();
      try {
        const result = await next(args);
        record(key, read, result.output as { ConsumedCapacity?: Capacity }, false);
        return result;
      } catch (error) {
        record(key, read, undefined, true);
        throw error;
      } finally {
        // The sandbox's own requests (inside the provider's calls here) are the provider's time.
        const ms = performance.now() - started;
        if (!key.endsWith(` ${tables.sandbox.localName}`))
          each((tally) => {
            tally.waited.awsMs += ms;
          });
      }
    };
    (client.middlewareStack as unknown as { add(m: Middleware, o: object): void }).add(middleware, {
      step: 'initialize',
      name: 'benchCounter',
    });
  });

  const client = ProviderClient.prototype as unknown as Record<
    string,
    (path: string, accessToken: string | undefined, body: unknown) => Promise<unknown>
  >;
  const post = client.post;
  if (!post) throw new Error('ProviderClient has no post method to count');
  client.post = async function (this: ProviderClient, path, accessToken, body) {
    each((tally) => {
      tally.provider[path] = (tally.provider[path] ?? 0) + 1;
    });
    if (accessToken) byConnection.set(accessToken, [...(byConnection.get(accessToken) ?? []), path]);
    const started = performance.now();
    try {
      return await post.call(this, path, accessToken, body);
    } finally {
      const ms = performance.now() - started;
      each((tally) => {
        tally.waited.providerMs += ms;
      });
    }
  };

  const vault = CredentialVault.prototype;
  const seal = vault.seal;
  vault.seal = function (this: CredentialVault, ...args: Parameters<CredentialVault['seal']>) {
    each((tally) => {
      tally.keys.seal += 1;
    });
    return seal.apply(this, args);
  };
  const openSealed = vault.open;
  vault.open = function <T>(this: CredentialVault, ...args: Parameters<CredentialVault['open']>) {
    each((tally) => {
      tally.keys.open += 1;
    });
    return openSealed.apply(this, args) as Promise<T>;
  };
  // The local stand-in of KMS: what the vault asked of the key, its cache missed.
  const dataKeys = LocalDataKeys.prototype;
  const generate = dataKeys.generate;
  dataKeys.generate = function (this: LocalDataKeys) {
    each((tally) => {
      tally.keys.generate += 1;
    });
    return generate.call(this);
  };
  const unwrap = dataKeys.unwrap;
  dataKeys.unwrap = function (this: LocalDataKeys, wrapped: Uint8Array) {
    each((tally) => {
      tally.keys.unwrap += 1;
    });
    return unwrap.call(this, wrapped);
  };

  // The local pollers: a receive that got messages starts an invocation, its delete ends it.
  const started = new Map<string, { queue: string; at: number; tallies: Tally[] }>();
  const send = SQSClient.prototype.send as (
    this: SQSClient,
    command: unknown,
    ...rest: unknown[]
  ) => Promise<unknown>;
  (SQSClient.prototype as unknown as { send: typeof send }).send = async function (
    this: SQSClient,
    command,
    ...rest
  ) {
    const output = await send.call(this, command, ...rest);
    if (command instanceof ReceiveMessageCommand) {
      const messages = (output as { Messages?: { ReceiptHandle?: string }[] }).Messages ?? [];
      if (messages.length > 0) {
        const queue = (command.input.QueueUrl ?? '').split('/').pop() ?? '?';
        const batch = { queue, at: performance.now(), tallies: [...open] };
        for (const message of messages) if (message.ReceiptHandle) started.set(message.ReceiptHandle, batch);
        each((tally) => {
          tally.polling.receives += 1;
        });
      }
    } else if (command instanceof DeleteMessageBatchCommand) {
      const handles = (command.input.Entries ?? []).map((entry) => entry.ReceiptHandle ?? '');
      const batch = handles.map((handle) => started.get(handle)).find((found) => found !== undefined);
      for (const handle of handles) started.delete(handle);
      if (batch) {
        const ms = performance.now() - batch.at;
        // Counted in the windows that were open when the invocation began.
        for (const tally of batch.tallies) {
          tally.invocations[batch.queue] = [...(tally.invocations[batch.queue] ?? []), ms];
          tally.polling.deletes += 1;
        }
      }
    }
    return output;
  };
}

/** A tally divided by a number of deposits (durations are kept as they are). */
export function perDeposit(tally: Tally, deposits: number) {
  const divide = (value: number) => value / deposits;
  return {
    provider: Object.fromEntries(Object.entries(tally.provider).map(([path, n]) => [path, divide(n)])),
    waited: { providerMs: divide(tally.waited.providerMs), awsMs: divide(tally.waited.awsMs) },
    aws: Object.fromEntries(
      Object.entries(tally.aws).map(([key, count]) => [
        key,
        {
          requests: divide(count.requests),
          readUnits: divide(count.readUnits),
          writeUnits: divide(count.writeUnits),
          refused: divide(count.refused),
        },
      ]),
    ),
    invocations: Object.fromEntries(
      Object.entries(tally.invocations).map(([queue, ms]) => [
        queue,
        {
          count: divide(ms.length),
          meanMs: ms.reduce((sum, value) => sum + value, 0) / Math.max(1, ms.length),
        },
      ]),
    ),
    polling: { receives: divide(tally.polling.receives), deletes: divide(tally.polling.deletes) },
    keys: {
      seal: divide(tally.keys.seal),
      open: divide(tally.keys.open),
      generate: divide(tally.keys.generate),
      unwrap: divide(tally.keys.unwrap),
    },
  };
}

export type PerDeposit = ReturnType<typeof perDeposit>;
