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
 *   deliveries      record: UpdateItem (the notifier, on each try); read: Query of a deposit's
 *                   records; resend: Query of the record, UpdateItem (its count), SendMessage on the
 *                   notify queue (the operator's)
 *   credentials     seal: GenerateDataKey (the API); open: Decrypt (the steps) - the vault's data keys
 *   owner keys      GetSecretValue of the owner-key secret (the routes that take a caller's token)
 *   sends / wakes   SendMessage on those step queues; CreateSchedule in the group and PassRole of
 *                   the scheduler's role when it wakes any
 *   unschedules     DeleteSchedule in the group (the cancel)
 *   relays          SendMessage on the notify queue; from the stream, also on the relay's own DLQ
 *                   (the caller's events ride on the deposit writes; only the relays send them on)
 * Each entity's actions go to its own items only: a statement per partition-key prefix, with
 * `dynamodb:LeadingKeys` (a transaction's items are authorized one by one, each by its own key). The
 * indexes hold deposit items only, so a Query on one needs no such condition.
 * The sandbox's: GetItem, PutItem, UpdateItem, Query on a user's partition (transactions of those).
 */

import { keys } from '#shared/adapters/deposits-table-items';
import { type Reach, type ReachName, reach } from '#shared/deposits/reach';
import { outbox, type queues, stepQueueKeys } from '#shared/topology';

type Action = 'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem';

const claimActions: Record<NonNullable<Reach['claims']>[number], Action[]> = {
  read: ['GetItem'],
  write: ['PutItem', 'UpdateItem'],
  markUsed: ['UpdateItem'],
  coolDown: ['UpdateItem'],
  forget: ['DeleteItem'],
  release: ['UpdateItem'],
};
const bankActions: Record<NonNullable<Reach['banks']>[number], Action[]> = {
  recall: ['GetItem'],
  remember: ['PutItem'],
  forget: ['DeleteItem'],
};
const deliveryActions: Record<NonNullable<Reach['deliveries']>, Action[]> = {
  record: ['UpdateItem'],
  read: ['Query'],
  resend: ['Query', 'UpdateItem'],
};
const wakeActions: Record<NonNullable<Reach['sharedWakes']>[number], Action[]> = {
  arm: ['PutItem', 'GetItem'],
  follow: ['UpdateItem'],
  take: ['GetItem', 'DeleteItem'],
};

/**
 * What a handler does with each entity of the deposits table (`keys` names them), as item actions.
 * Every entity of `keys` must be here: a new one fails the synth until someone says who touches it.
 */
const entityActions: Record<string, (handler: Reach) => Action[]> = {
  deposit: (handler) => [
    ...(handler.deposits ? (['GetItem'] as const) : []),
    ...(handler.deposits === 'write' || handler.idempotency ? (['PutItem'] as const) : []),
    // A step that opens credentials reads them with the deposit: a Query of its partition.
    ...(handler.credentials === 'open' ? (['Query'] as const) : []),
    // The sweeper moves the check time of what it re-drives (an update, conditional on the version).
    ...(handler.dueIndex ? (['UpdateItem'] as const) : []),
    // The lists read the deposits whose keys an index gave (the owner's, the backend's, the status').
    ...(handler.ownerIndex || handler.backendIndex || handler.statusIndex ? (['BatchGetItem'] as const) : []),
  ],
  // In the deposit's partition: put by the create's transaction, deleted by the write that ends it.
  sealed: (handler) => [
    ...(handler.idempotency ? (['PutItem'] as const) : []),
    ...(handler.deposits === 'write' ? (['DeleteItem'] as const) : []),
    ...(handler.credentials === 'open' ? (['Query'] as const) : []),
  ],
  // Put in the create's transaction, read when a repeat finds it taken.
  idempotency: (handler) => (handler.idempotency ? ['PutItem', 'GetItem'] : []),
  // The same, for a deposit's client reference (one deposit per reference and backend).
  clientReference: (handler) => (handler.idempotency ? ['PutItem', 'GetItem'] : []),
  beneficiary: (handler) => (handler.claims ?? []).flatMap((use) => claimActions[use]),
  bank: (handler) => (handler.banks ?? []).flatMap((use) => bankActions[use]),
  wake: (handler) => (handler.sharedWakes ?? []).flatMap((use) => wakeActions[use]),
  // Acquire and release are updates; a step that finds the lease busy reads its holder.
  lease: (handler) => (handler.leases ? ['UpdateItem', 'GetItem'] : []),
  // In a partition of their own per deposit (`DELIVERY#`), out of reach of whatever writes deposits.
  delivery: (handler) => (handler.deliveries ? deliveryActions[handler.deliveries] : []),
};

const actionOrder: Action[] = ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'];
const inOrder = (used: Iterable<Action>) => {
  const set = new Set(used);
  return actionOrder.filter((action) => set.has(action));
};
const iam = (actions: Action[]) => actions.map((action) => `dynamodb:${action}`);

/** The partition-key prefix of an entity of the deposits table: `DEPOSIT#`, `LEASE#`, ... */
function prefixOf(entity: keyof typeof keys): string {
  const { pk } = (keys[entity] as (...args: string[]) => { pk: string })('x', 'x');
  const end = pk.indexOf('#');
  if (end < 1)
    throw new Error(`the deposits table's entity ${entity} has no prefix in its partition key ${pk}`);
  return pk.slice(0, end + 1);
}

/**
 * A handler's item actions on the deposits table, by the partition-key prefix of the entities it
 * touches (entities that share a partition, the deposit and its sealed credentials, share a prefix).
 */
function depositsTablePartitions(handler: Reach): { prefix: string; actions: Action[] }[] {
  const byPrefix = new Map<string, Set<Action>>();
  for (const entity of Object.keys(keys) as (keyof typeof keys)[]) {
    const actions = entityActions[entity];
    if (!actions)
      throw new Error(`the deposits table's entity ${entity} has no grants in infra/cdk/grants.ts`);
    const used = actions(handler);
    if (!used.length) continue;
    const prefix = prefixOf(entity);
    byPrefix.set(prefix, new Set([...(byPrefix.get(prefix) ?? []), ...used]));
  }
  return [...byPrefix].map(([prefix, used]) => ({ prefix, actions: inOrder(used) }));
}

/** What a handler may touch, as its function settings say it (`settings.ts`). */
export interface Grants {
  /** Item-level actions on one table (all of them: `partitions` says on which items). */
  table?: { key: 'deposits'; actions: readonly string[] };
  /**
   * The same actions by partition-key prefix (`dynamodb:LeadingKeys`): each entity's items get only
   * what the handler does with that entity.
   */
  partitions?: readonly { prefix: string; actions: readonly string[] }[];
  /** Query on these indexes of one table. */
  index?: { key: 'deposits'; names: readonly string[] };
  sendsTo: readonly (keyof typeof queues)[];
  /** The DLQs it sends to itself (the outbox relay's, where it sets aside what it could not relay). */
  sendsToDlqOf?: readonly (keyof typeof queues)[];
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
  const partitions = depositsTablePartitions(handler);
  const tableActions = iam(inOrder(partitions.flatMap((partition) => partition.actions)));
  const indexes = [
    ...(handler.dueIndex ? ['byCheckAt'] : []),
    ...(handler.ownerIndex ? ['byOwner'] : []),
    ...(handler.backendIndex ? ['byBackend'] : []),
    ...(handler.statusIndex ? ['byStatus'] : []),
  ];
  return {
    ...(tableActions.length
      ? {
          table: { key: 'deposits', actions: tableActions },
          partitions: partitions.map(({ prefix, actions }) => ({ prefix, actions: iam(actions) })),
        }
      : {}),
    ...(indexes.length ? { index: { key: 'deposits', names: indexes } } : {}),
    sendsTo: [
      ...handler.sends.map((step) => stepQueueKeys[step]),
      ...(handler.deliveries === 'resend' || handler.relays ? (['notify'] as const) : []),
    ],
    ...(handler.relays === 'stream' ? { sendsToDlqOf: [outbox.queue] } : {}),
    ...(handler.credentials ? { credentialsKey: handler.credentials } : {}),
    createsSchedules: handler.wakes.length > 0,
    ...(handler.unschedules ? { deletesSchedules: true } : {}),
    ...(handler.queueDepths ? { readsQueueDepths: true } : {}),
    ...(handler.ownerKeys ? { secrets: ['ownerKey'] as const } : {}),
  };
}
