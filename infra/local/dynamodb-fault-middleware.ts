/**
 * The DynamoDB faults' middleware (`dynamodb-faults.ts`), for the local stack only: added from outside
 * to every DynamoDB client the handlers make (`onClientCreated` of shared/adapters/clients.ts), once
 * per process, at the SDK's `deserialize` step. That is inside the SDK's retries: a fault answers one
 * attempt, and the SDK's retry strategy decides, as in AWS, whether to send the call again (it does
 * for a throttling, an internal error and a lost answer, up to the client's attempts; not for a
 * transaction conflict).
 *
 * A call is a connection's when it names one of the connection's items in the deposits table: its
 * lease, beneficiary claims, shared wake-ups, bank memory and idempotency keys by their keys (`keys`
 * of deposits-table-items.ts); a deposit's items by the deposit's owner, which this process learns
 * from every deposit item it writes or reads (the steps read a deposit before they write anything
 * of it). A fault that goes off while the connection has transfer attempts open in this process (its
 * transfer called, its outcome not written yet) is noted as evidence that those outcomes may be lost.
 */
import {
  type DynamoDBClient,
  InternalServerError,
  ProvisionedThroughputExceededException,
  ThrottlingException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { onClientCreated } from '#shared/adapters/clients';
import { keys } from '#shared/adapters/deposits-table-items';
import { tables } from '#shared/topology';
import { openAttemptsOf } from './crash-points.ts';
import {
  anyDynamoDbFaultArmed,
  armedOwners,
  type DynamoDbFaultKind,
  noteFaultInAttempt,
  takeDynamoDbFault,
} from './dynamodb-faults.ts';

/** What a key of the deposits table names, for one connection. */
type Entity = 'deposit' | 'claim' | 'lease' | 'wake' | 'other';

/** An item a call names: its keys, and its owner when the call carries the item whole. */
interface Named {
  pk: string;
  sk?: string | undefined;
  ownerKey?: string | undefined;
}

/**
 * The deposits table's name as this process's handlers have it (the stack's, prefixed on a shared
 * DynamoDB Local), read at each call: the handlers' environment is set when the stack starts.
 */
const depositsTableOfProcess = () => process.env[tables.deposits.envVar] ?? tables.deposits.localName;
const depositPrefix = keys.deposit('').pk;
const writes = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);
/** Each deposit's owner, by deposit id, as this process last wrote or read its item. */
const ownerOfDeposit = new Map<string, string>();

/** A string attribute, as the document client writes it or as DynamoDB marshals it (`{ S }`). */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const marshalled = (value as { S?: unknown } | undefined)?.S;
  return typeof marshalled === 'string' ? marshalled : undefined;
}

/** The item's keys and owner, when it has a key (`pk`). */
function named(item: unknown): Named[] {
  if (!item || typeof item !== 'object') return [];
  const record = item as Record<string, unknown>;
  const pk = text(record.pk);
  return pk ? [{ pk, sk: text(record.sk), ownerKey: text(record.ownerKey) }] : [];
}

/** The items of the deposits table (`depositsTable`) a call names, whatever its operation. */
function itemsOf(operation: string, input: Record<string, unknown>, depositsTable: string): Named[] {
  const ofDeposits = (table: unknown, item: unknown) => (table === depositsTable ? named(item) : []);
  if (Array.isArray(input.TransactItems)) {
    return (input.TransactItems as Record<string, { TableName?: unknown; Key?: unknown; Item?: unknown }>[])
      .flatMap((entry) => Object.values(entry))
      .flatMap((action) => ofDeposits(action.TableName, action.Key ?? action.Item));
  }
  if (operation === 'Query') {
    // A query of a deposit's partition names it in its key condition's values.
    const values = Object.values((input.ExpressionAttributeValues ?? {}) as Record<string, unknown>);
    return values.flatMap((value) => ofDeposits(input.TableName, { pk: value }));
  }
  return ofDeposits(input.TableName, input.Key ?? input.Item);
}

/** Learns the owners of the deposit items in an answer (a read's item or items, a write's old item). */
function learn(output: unknown) {
  const answer = (output ?? {}) as { Item?: unknown; Items?: unknown; Attributes?: unknown };
  const found = [answer.Item, answer.Attributes, ...(Array.isArray(answer.Items) ? answer.Items : [])];
  for (const item of found.flatMap(named)) remember(item);
}

function remember(item: Named) {
  if (item.ownerKey && item.pk.startsWith(depositPrefix))
    ownerOfDeposit.set(item.pk.slice(depositPrefix.length), item.ownerKey);
}

/** What the item is to the connection `ownerKey`; undefined when it is not the connection's. */
function entityOf(item: Named, ownerKey: string): Entity | undefined {
  const { pk } = item;
  if (pk.startsWith(depositPrefix)) {
    const owner = item.ownerKey ?? ownerOfDeposit.get(pk.slice(depositPrefix.length));
    if (owner !== ownerKey) return undefined;
    return item.sk === keys.sealed('').sk ? 'other' : 'deposit';
  }
  if (pk.startsWith(keys.beneficiary(ownerKey, '').pk)) return 'claim';
  if (pk === keys.lease(ownerKey).pk) return 'lease';
  if (pk.startsWith(keys.wake(ownerKey, '').pk)) return 'wake';
  if (pk.startsWith(keys.bank(ownerKey, '').pk) || pk.startsWith(keys.idempotency(ownerKey, '').pk))
    return 'other';
  return undefined;
}

/** Whether a fault of `kind` applies to this call of the connection's `entities`. */
function applies(kind: DynamoDbFaultKind, operation: string, entities: Set<Entity>): boolean {
  switch (kind) {
    case 'transaction-conflict':
      return (operation === 'PutItem' || operation === 'UpdateItem') && entities.has('deposit');
    case 'lost-claim-answer':
      return writes.has(operation) && entities.has('claim');
    case 'lost-lease-answer':
      return writes.has(operation) && entities.has('lease');
    case 'lost-wake-answer':
      return writes.has(operation) && entities.has('wake');
    default:
      return true;
  }
}

/** The rule this call uses up, if one armed here meets it. */
function faultFor(operation: string, items: Named[]) {
  for (const ownerKey of armedOwners()) {
    const entities = new Set(items.flatMap((item) => entityOf(item, ownerKey) ?? []));
    if (entities.size === 0) continue;
    const rule = takeDynamoDbFault(ownerKey, (kind) => applies(kind, operation, entities));
    if (rule) return rule;
  }
  return undefined;
}

const metadata = (httpStatusCode: number) => ({ httpStatusCode, requestId: 'local-dynamodb-fault' });
const marked = (message: string) => `${message} [local DynamoDB fault]`;

/** DynamoDB's own answer for a fault that comes before the call has any effect. */
function refusal(kind: DynamoDbFaultKind): Error {
  switch (kind) {
    case 'throttling':
      return new ThrottlingException({
        message: marked('Throughput exceeds the current capacity of your table or index.'),
        $metadata: metadata(400),
      });
    case 'throughput-exceeded':
      return new ProvisionedThroughputExceededException({
        message: marked('The level of configured provisioned throughput for the table was exceeded.'),
        $metadata: metadata(400),
      });
    case 'internal-error':
      return new InternalServerError({ message: marked('Internal server error'), $metadata: metadata(500) });
    default:
      return new TransactionConflictException({
        message: marked('Transaction is ongoing for the item'),
        $metadata: metadata(400),
      });
  }
}

/** What the SDK's HTTP handler throws when the connection goes before the answer comes. */
function lostAnswer(operation: string): Error {
  const error = new Error(marked(`${operation}: the connection was reset after the request was sent`));
  return Object.assign(error, { name: 'TimeoutError', code: 'ECONNRESET', $metadata: {} });
}

type Handler = (args: { input: Record<string, unknown> }) => Promise<{ output: unknown }>;
type Middleware = (next: Handler, context: { commandName?: string }) => Handler;

/** The middleware, for the deposits table `depositsTable()` names. */
const faultsOf =
  (depositsTable: () => string): Middleware =>
  (next, context) =>
  async (args) => {
    const operation = (context.commandName ?? '').replace(/Command$/, '');
    const items = itemsOf(operation, args.input, depositsTable());
    for (const item of items) remember(item);
    const rule = anyDynamoDbFaultArmed() ? faultFor(operation, items) : undefined;
    if (!rule) {
      const answer = await next(args);
      learn(answer.output);
      return answer;
    }
    const open = openAttemptsOf(rule.ownerKey);
    if (open.length > 0)
      noteFaultInAttempt({ kind: rule.kind, ownerKey: rule.ownerKey, depositIds: open, at: Date.now() });
    if (!rule.kind.startsWith('lost-')) throw refusal(rule.kind);
    // The write goes to DynamoDB Local and lands (or is refused); whichever, its answer is lost.
    await next(args).then(
      (answer) => learn(answer.output),
      () => undefined,
    );
    throw lostAnswer(operation);
  };

/**
 * Adds the faults' middleware to a DynamoDB client (or a document client over one), for the deposits
 * table `depositsTable`: by default the one this process's handlers have in their environment (a
 * client outside the stack's processes, a test's own, is given the stack's).
 */
export function addDynamoDbFaults(client: Pick<DynamoDBClient, 'middlewareStack'>, depositsTable?: string) {
  const tableName = depositsTable === undefined ? depositsTableOfProcess : () => depositsTable;
  (client.middlewareStack as unknown as { add(m: Middleware, o: object): void }).add(faultsOf(tableName), {
    step: 'deserialize',
    priority: 'high',
    name: 'localDynamoDbFaults',
    override: true,
  });
}

let installed = false;

/** Adds the middleware to every DynamoDB client of this process, made already or later; once. */
export function installDynamoDbFaults() {
  if (installed) return;
  installed = true;
  onClientCreated((client, service) => {
    if (service === 'DynamoDB') addDynamoDbFaults(client as DynamoDBClient);
  });
}
