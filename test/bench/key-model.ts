/**
 * The key model: what 1,000 deposits a second write to each partition of the deposits table and of
 * its indexes, against DynamoDB's per-partition limits (1,000 write units and 3,000 read units a
 * second). It is not guessed: a first and a repeat deposit run through the real steps in the unit
 * tests' world (`deposit-world.ts`), every write each makes is recorded, and each is placed by the
 * table's own key functions and the deposit item it writes (`depositItem`: the index keys, the
 * shards). Scaling assumes what the service guarantees or the deployment states:
 *   - a deposit lives at least a second (the bank's own time), so its own partitions take its
 *     writes within no less than that;
 *   - a connection runs at most one deposit a second (one provider operation at a time each);
 *   - the index shards are hashes of the deposit id, so the writes spread evenly (a tenth added for
 *     the unevenness of 1,000 ids a second over the shards).
 * `test/unit/key-model.test.ts` asserts that no partition takes more than half of a limit;
 * `npm run bench` prints the model.
 */

import { randomBytes } from 'node:crypto';
import { CredentialVault } from '#shared/adapters/credential-vault';
import { LocalDataKeys } from '#shared/adapters/credentials-key';
import {
  BACKEND_SHARDS,
  CHECK_SHARDS,
  depositItem,
  isFinal,
  keys,
  STATUS_SHARDS,
  sealedItem,
} from '#shared/adapters/deposits-table-items';
import type { Deposit } from '#shared/deposits/model/deposit';
import { dueProjection } from '#shared/deposits/ports/records';
import { startDeposit } from '#shared/deposits/requests/start';
import { ensureBeneficiary } from '#shared/deposits/steps/ensure-beneficiary';
import { reconcile } from '#shared/deposits/steps/reconcile';
import { resolveBank } from '#shared/deposits/steps/resolve-bank';
import { transfer } from '#shared/deposits/steps/transfer';
import {
  answers,
  credentials,
  metadata,
  startRequest,
  walletListing,
  world,
} from '../support/deposit-world.ts';

/**
 * What a KMS-wrapped data key adds over the local key's: KMS's ciphertext blob of a 256-bit data key
 * is 184 bytes (246 in base64url), the local wrapping 60 (80).
 */
const kmsExtraBytes = 166;

/** DynamoDB's limits for one partition, a second. */
export const partitionLimits = { writeUnits: 1_000, readUnits: 3_000 };

/** How a partition's key is shared: by one deposit, one connection, or every deposit (an index shard). */
type Scope = 'deposit' | 'connection' | 'shared';

/** One write as the model counts it: where it lands and how many write units it costs. */
interface Write {
  where: string;
  partition: string;
  scope: Scope;
  units: number;
}

/** An item's size as DynamoDB counts it, closely: names and values in bytes, numbers by digits. */
export function itemBytes(value: unknown): number {
  if (value === undefined || value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number')
    return Math.ceil(String(Math.abs(value)).replace(/[.-]/g, '').length / 2) + 1;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, item) => sum + 1 + itemBytes(item), 0);
  return (
    3 +
    Object.entries(value as Record<string, unknown>)
      .filter(([, field]) => field !== undefined)
      .reduce((sum, [name, field]) => sum + Buffer.byteLength(name) + itemBytes(field), 0)
  );
}

const writeUnits = (item: unknown) => Math.max(1, Math.ceil(itemBytes(item) / 1024));

/** The index writes one deposit write makes, from the item before it (none: a new deposit) to the item it writes. */
function indexWrites(
  before: ReturnType<typeof depositItem> | undefined,
  after: ReturnType<typeof depositItem>,
): Write[] {
  const writes: Write[] = [];
  // byCheckAt projects the keys and what the sweeper needs (`dueProjection`, the version among them,
  // so every write of a deposit in flight changes it): a write there (leaving it, a delete).
  const shard = after.checkShard ?? before?.checkShard;
  if (shard) {
    const due = (item: typeof after) => ({
      pk: item.pk,
      sk: item.sk,
      checkShard: item.checkShard,
      checkAt: item.checkAt,
      ...Object.fromEntries(dueProjection.map((name) => [name, item[name]])),
    });
    writes.push({
      where: 'byCheckAt',
      partition: 'CHECK#<shard>',
      scope: 'shared',
      units: writeUnits(due(after.checkShard ? after : (before ?? after))),
    });
  }
  // byStatus projects the keys and the step: written when one of them changes (a new partition: a
  // delete from the old one and a put to the new one).
  const projected = (item: typeof after) => ({
    pk: item.pk,
    sk: item.sk,
    opsBucket: item.opsBucket,
    createdAt: item.createdAt,
    step: item.step,
  });
  if (!before || before.opsBucket !== after.opsBucket || before.step !== after.step) {
    const bucket = (item: typeof after) => `${String(item.opsBucket).split('#')[0]}#<shard>`;
    if (before && before.opsBucket !== after.opsBucket)
      writes.push({
        where: 'byStatus',
        partition: bucket(before),
        scope: 'shared',
        units: writeUnits(projected(before)),
      });
    writes.push({
      where: 'byStatus',
      partition: bucket(after),
      scope: 'shared',
      units: writeUnits(projected(after)),
    });
  }
  // byBackend projects the keys and the status: written when the status changes (its partition, the
  // deposit's backend in its shard, never does). Every deposit here is one backend's, as a wallet
  // backend's deposits are: its shards take them all.
  if (after.backendListedBy && (!before || before.status !== after.status))
    writes.push({
      where: 'byBackend',
      partition: '<backend>#<shard>',
      scope: 'shared',
      units: writeUnits({
        pk: after.pk,
        sk: after.sk,
        backendListedBy: after.backendListedBy,
        createdAt: after.createdAt,
        status: after.status,
      }),
    });
  // byOwner projects the keys only, which never change: written once.
  if (!before)
    writes.push({ where: 'byOwner', partition: 'listedBy <owner>', scope: 'connection', units: 1 });
  return writes;
}

/** Counts the writes of a port's methods that write, each to the partition its key function names (patched in place: contexts hold the port). */
function counting(
  port: object,
  methods: Record<string, () => string>,
  where: string,
  scope: Scope,
  writes: Write[],
) {
  const methodsOf = port as Record<string, (...args: unknown[]) => unknown>;
  for (const [name, partition] of Object.entries(methods)) {
    const original = methodsOf[name];
    if (!original) throw new Error(`no method ${name} to count`);
    methodsOf[name] = (...args: unknown[]) => {
      writes.push({ where, partition: partition(), scope, units: 1 });
      return original.apply(port, args);
    };
  }
}

/** The writes of one first deposit and of one repeat on the same connection, through the real steps. */
export async function recordDeposits(): Promise<{ first: Write[]; repeat: Write[] }> {
  const w = world();
  const recorded: Write[] = [];
  const vault = new CredentialVault(new LocalDataKeys(randomBytes(32).toString('base64')));
  // Each entity's partition by its own key function, its arguments named.
  const lease = () => keys.lease('<owner>').pk;
  const claim = () => keys.beneficiary('<owner>', '<wallet account>').pk;
  const bank = () => keys.bank('<owner>', '<reader>').pk;
  const idempotency = () => keys.idempotency('<owner>', '<key>').pk;
  const claimWrites = { claim, update: claim, markUsed: claim, forget: claim, release: claim };
  counting(w.table.claims, claimWrites, 'table', 'connection', recorded);
  counting(w.table.leases, { acquire: lease, release: lease }, 'table', 'connection', recorded);
  counting(w.table.banks, { remember: bank, forget: bank }, 'table', 'connection', recorded);
  // Written with its deposit, in one transaction.
  counting(w.table.idempotency, { createOnce: idempotency }, 'table', 'deposit', recorded);

  const run = async (idempotencyKey: string, first: boolean) => {
    const from = recorded.length;
    const writesFrom = w.table.writes.length;
    const { view } = await startDeposit(
      startRequest({ idempotencyKey, backend: 'the wallet backend' }),
      w.contexts.start(),
    );
    const id = view.operationID;
    // The create's own write (with its idempotency record, in one transaction).
    const created = w.table.current(id);
    if (first) w.provider.answer('getMetadata', metadata());
    await resolveBank(w.table.current(id), w.contexts.resolveBank());
    if (first) {
      w.provider.answer('listBeneficiaries', walletListing(), walletListing('ben-1'));
      w.provider.answer('createBeneficiary', answers.done({ jobID: 'j', success: true, status: 'done' }));
    }
    await ensureBeneficiary(w.table.current(id), w.contexts.ensureBeneficiary());
    w.provider.answer('createTransfer', { status: 'initialized' as const, id: `op-${id}`, response: {} });
    await transfer(w.table.current(id), w.contexts.transfer());
    w.clock.advance(1_000);
    w.provider.answer('getOperation', answers.done({ reference: `REF-${id}` }, `op-${id}`));
    await reconcile(w.table.current(id), w.contexts.reconcile());
    const ended = w.table.current(id);
    if (ended.status !== 'done')
      throw new Error(`the modelled deposit ended ${ended.status} at ${ended.step}`);
    // Each version of the deposit: its own partition, and the index writes it makes.
    const versions = [
      created,
      ...w.table.writes.slice(writesFrom).filter((write: Deposit) => write.id === id),
    ];
    let before: ReturnType<typeof depositItem> | undefined;
    const depositWrites: Write[] = [];
    // The unit world seals with a stand-in: the credentials' own item is sized with them sealed as
    // the service seals them (the vault, its local key; KMS's wrapped data key adds `kmsExtraBytes`).
    const sealed = await vault.seal('credentials', id, credentials);
    const sealedCredentials = sealed + ' '.repeat(kmsExtraBytes);
    const sealedUnits = writeUnits(sealedItem({ id, sealedCredentials, createdAt: created.createdAt }));
    const partition = keys.deposit('<id>').pk;
    versions.forEach((version, index) => {
      const item = depositItem(version);
      // The create (with the credentials' item) and the end (deleting it) are transactions, which
      // take twice the units of each item they write.
      const transaction = index === 0 || isFinal(version);
      const times = transaction ? 2 : 1;
      depositWrites.push(
        { where: 'table', partition, scope: 'deposit', units: times * writeUnits(item) },
        ...indexWrites(before, item),
        ...(transaction
          ? [{ where: 'table', partition, scope: 'deposit' as const, units: 2 * sealedUnits }]
          : []),
      );
      before = item;
    });
    return [...recorded.slice(from), ...depositWrites];
  };
  const first = await run('key-model-1', true);
  const repeat = await run('key-model-2', false);
  return { first, repeat };
}

export interface PartitionLoad {
  where: string;
  partition: string;
  /** Write units a second, at the rate modelled. */
  writeUnits: number;
  /** Share of the per-partition limit. */
  ofLimit: number;
}

/** The shards of each sharded index, as the table has them; a model may try others. */
export interface Shards {
  byCheckAt: number;
  byStatus: number;
  byBackend: number;
}

/** Each partition's write units a second at `depositsPerSecond`, half of them first deposits. */
export function keyModel(
  recorded: { first: Write[]; repeat: Write[] },
  depositsPerSecond = 1_000,
  shards: Shards = { byCheckAt: CHECK_SHARDS, byStatus: STATUS_SHARDS, byBackend: BACKEND_SHARDS },
): PartitionLoad[] {
  const loads = new Map<string, PartitionLoad>();
  const add = (write: Write, perSecond: number) => {
    const key = `${write.where} ${write.partition}`;
    const load = loads.get(key) ?? {
      where: write.where,
      partition: write.partition,
      writeUnits: 0,
      ofLimit: 0,
    };
    load.writeUnits += write.units * perSecond;
    load.ofLimit = load.writeUnits / partitionLimits.writeUnits;
    loads.set(key, load);
  };
  for (const [writes, share] of [
    [recorded.first, 0.5],
    [recorded.repeat, 0.5],
  ] as const) {
    for (const write of writes) {
      // One deposit's or one connection's partition: at most one deposit a second on it (the worse
      // of a first and a repeat, counted apart below). A shard: its share of every deposit's writes.
      if (write.scope === 'shared')
        add(write, (depositsPerSecond * share * 1.1) / shards[write.where as keyof Shards]);
      else
        add(
          { ...write, partition: `${write.partition} (${writes === recorded.first ? 'first' : 'repeat'})` },
          1,
        );
    }
  }
  return [...loads.values()].sort((a, b) => b.writeUnits - a.writeUnits);
}
