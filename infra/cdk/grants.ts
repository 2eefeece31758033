/**
 * The orchestrator's grants follow from what each handler's context uses, as
 * `shared/deposits/reach.ts` declares it, turned into the calls its adapters make
 * (shared/adapters/deposit-items.ts, deposits-table.ts and the others):
 *   deposits        read: GetItem; write: GetItem, PutItem (conditional on the version), and the
 *                   write that ends a deposit deletes its sealed credentials (DeleteItem, one
 *                   transaction); with credentials open: Query of the deposit's partition
 *                   (the deposit and its sealed credentials in one read)
 *   idempotency     a transaction of three Puts (PutItem: the key, the deposit, its sealed
 *                   credentials), then GetItem of a taken key
 *   claims          read: GetItem; write: PutItem, UpdateItem (a claim's time refreshed alone);
 *                   markUsed, coolDown, release: UpdateItem (a released claim stays, claimable at
 *                   once); forget: DeleteItem
 *   banks           recall: GetItem; remember: PutItem; forget: DeleteItem (the remembered metadata)
 *   shared wakes    arm: PutItem, GetItem; follow: UpdateItem; take: GetItem, DeleteItem (a payment
 *                   source's wake-up, read, then deleted while it holds just the followers read)
 *   leases          UpdateItem (acquire and release are both updates); GetItem of its holder (a
 *                   step that finds the lease busy: another run of its own deposit, or another's)
 *   due index       Query on the `byCheckAt` index, UpdateItem of the check time (the sweeper only)
 *   owner index     Query on the `byOwner` index, BatchGetItem of the deposits it names (the list)
 *   backend index   Query on the `byBackend` index, BatchGetItem of the deposits it names (the list
 *                   of a backend that reads by its own identity)
 *   status index    Query on the `byStatus` index, BatchGetItem of the deposits it names (the operator's list)
 *   queue depths    GetQueueAttributes on every queue of the topology and its DLQ (the operator's)
 *   credentials     seal: GenerateDataKey (the API); open: Decrypt (the steps) - the vault's data keys
 *   owner keys      GetSecretValue of the owner-key secret (the routes that take a caller's token)
 *   sends / wakes   SendMessage on those step queues; CreateSchedule in the group and PassRole of
 *                   the scheduler's role when it wakes any
 *   unschedules     DeleteSchedule in the group (the cancel)
 *   (events         ride on the deposit writes; only the outbox relay sends to the notify queue,
 *                   and to its own DLQ, and its re-relay consumer to the notify queue)
 * The sandbox's: GetItem, PutItem, UpdateItem, Query on a user's partition (transactions of those).
 */
import { type queues, stepQueueKeys } from '#infra/topology';
import { type Reach, type ReachName, reach } from '#shared/deposits/reach';

/** The item actions on the deposits table of what a handler does with its entities. */
function depositsTableActions(handler: Reach): string[] {
  const used = new Set<string>();
  if (handler.deposits) used.add('dynamodb:GetItem');
  if (handler.deposits === 'write' || handler.idempotency) used.add('dynamodb:PutItem');
  // The write that ends a deposit deletes its sealed credentials.
  if (handler.deposits === 'write') used.add('dynamodb:DeleteItem');
  // A step that opens credentials reads them with the deposit: a Query of its partition.
  if (handler.credentials === 'open') used.add('dynamodb:Query');
  if (handler.idempotency) used.add('dynamodb:GetItem');
  const claimActions = {
    read: ['GetItem'],
    write: ['PutItem', 'UpdateItem'],
    markUsed: ['UpdateItem'],
    coolDown: ['UpdateItem'],
    forget: ['DeleteItem'],
    release: ['UpdateItem'],
  };
  for (const use of handler.claims ?? [])
    for (const action of claimActions[use]) used.add(`dynamodb:${action}`);
  const bankActions = { recall: 'GetItem', remember: 'PutItem', forget: 'DeleteItem' };
  for (const use of handler.banks ?? []) used.add(`dynamodb:${bankActions[use]}`);
  const wakeActions = {
    arm: ['PutItem', 'GetItem'],
    follow: ['UpdateItem'],
    take: ['GetItem', 'DeleteItem'],
  };
  for (const use of handler.sharedWakes ?? [])
    for (const action of wakeActions[use]) used.add(`dynamodb:${action}`);
  if (handler.leases) {
    used.add('dynamodb:UpdateItem');
    used.add('dynamodb:GetItem');
  }
  // The sweeper moves the check time of what it re-drives (an update, conditional on the version).
  if (handler.dueIndex) used.add('dynamodb:UpdateItem');
  // The list reads the deposits whose keys the owner (or backend) index gave.
  if (handler.ownerIndex || handler.backendIndex) used.add('dynamodb:BatchGetItem');
  // So does the operator's, of those the status index gave.
  if (handler.statusIndex) used.add('dynamodb:BatchGetItem');
  const order = ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'].map(
    (action) => `dynamodb:${action}`,
  );
  return order.filter((action) => used.has(action));
}

/** What a handler may touch, as its function settings say it (`settings.ts`). */
export interface Grants {
  /** Item-level actions on one table. */
  table?: { key: 'deposits'; actions: readonly string[] };
  /** Query on these indexes of one table. */
  index?: { key: 'deposits'; names: readonly string[] };
  sendsTo: readonly (keyof typeof queues)[];
  credentialsKey?: 'seal' | 'open';
  createsSchedules: boolean;
  /** Deletes schedules of the group (a cancelled deposit's wake-ups). */
  deletesSchedules?: boolean;
  /** Reads the message counts of every queue and of its DLQ. */
  readsQueueDepths?: boolean;
  /** The secrets it reads at cold start: the owner key, for the routes that take a token. */
  secrets?: readonly 'ownerKey'[];
}

/** A deposits handler's grants, from its reach. */
export function grantsOf(name: ReachName): Grants {
  const handler: Reach = reach[name];
  const tableActions = depositsTableActions(handler);
  const indexes = [
    ...(handler.dueIndex ? ['byCheckAt'] : []),
    ...(handler.ownerIndex ? ['byOwner'] : []),
    ...(handler.backendIndex ? ['byBackend'] : []),
    ...(handler.statusIndex ? ['byStatus'] : []),
  ];
  return {
    ...(tableActions.length ? { table: { key: 'deposits', actions: tableActions } } : {}),
    ...(indexes.length ? { index: { key: 'deposits', names: indexes } } : {}),
    sendsTo: handler.sends.map((step) => stepQueueKeys[step]),
    ...(handler.credentials ? { credentialsKey: handler.credentials } : {}),
    createsSchedules: handler.wakes.length > 0,
    ...(handler.unschedules ? { deletesSchedules: true } : {}),
    ...(handler.queueDepths ? { readsQueueDepths: true } : {}),
    ...(handler.ownerKeys ? { secrets: ['ownerKey'] as const } : {}),
  };
}
