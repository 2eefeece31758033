/**
 * The deposits table's records as the domain reaches them: the deposit, its idempotency records,
 * the index of deposits due a look (the sweeper's), and the lists by connection and by backend. No
 * AWS here: `shared/adapters/` implements these.
 */
import type { Deposit, DepositStatus } from '../model/deposit.ts';

/** The deposit items: read by id, written only if still at the version the writer read. */
export interface DepositRecords {
  get(depositId: string): Promise<Deposit | undefined>;
  /** Writes the deposit if it is still at `expectedVersion`; false otherwise. */
  save(deposit: Deposit, expectedVersion: number): Promise<boolean>;
}

/**
 * One deposit per idempotency key and connection, and one per `clientReference` and backend (the
 * connection when the deposit has no backend).
 */
export interface IdempotencyRecords {
  /**
   * Writes the deposit and its idempotency record (and its reference's) together, conditionally; if
   * the key (or the reference) is taken, nothing is written and the answer names the deposit that
   * holds it, and which was taken (the key, when both are).
   */
  createOnce(
    deposit: Deposit,
  ): Promise<
    | { created: true }
    | { created: false; depositId: string | undefined; taken: 'idempotencyKey' | 'clientReference' }
  >;
}

/**
 * Where a page of the deposits due a look ended: the index's own position (the sweeper passes it
 * back as it got it, and reads nothing in it).
 */
export type DuePosition = string;

/** The deposits in flight whose check time has passed: the sweeper's index. */
/** What the sweeper needs of a deposit due a look: what its index (`byCheckAt`) projects. */
export const dueProjection = ['id', 'step', 'status', 'version', 'redrives'] as const;
export type DueDeposit = Pick<Deposit, (typeof dueProjection)[number] | 'checkAt'>;

export interface DueDeposits {
  /**
   * Up to `limit` deposits whose `checkAt` has passed, oldest first, after the position `after` (where
   * the page before ended); `last` while more may follow. A run that pages on with it meets each due
   * deposit once, even while the index (eventually consistent) still shows the ones it has deferred.
   */
  findDue(
    now: number,
    limit: number,
    after?: DuePosition,
  ): Promise<{ deposits: DueDeposit[]; last?: DuePosition | undefined }>;
  /**
   * Moves the check time of a deposit still at its version to `checkAt`, and counts the re-drive
   * (`redrives`): not a transition, so the messages in flight for it stay valid. False if it moved,
   * or is moving (a transaction, such as the one that ends it, writes it meanwhile), or was deferred
   * since the look that found it (its count of re-drives is not the one found: an index that lags
   * shows a deposit due still after its defer, to the sweeper's next run).
   */
  defer(deposit: DueDeposit, checkAt: number): Promise<boolean>;
}

/**
 * Told of each deposit a sweeper run could not re-drive (its logs and a metric): the deposit stays
 * in the index, for a later run (a failed `defer` leaves it due now; a failed `send`, at the check
 * time the defer gave it), and the run goes on.
 */
export interface RedriveFailures {
  failed(deposit: DueDeposit, during: 'defer' | 'send', error: unknown): void;
}

/** Where a page of a connection's deposits ended: its last deposit. */
export interface ListPosition {
  depositId: string;
  createdAt: number;
}

/** A connection's deposits (or its payment sources), newest first, a page at a time: the caller's list. */
export interface OwnerDeposits {
  /** Up to `limit` deposits (or sources) of `ownerKey`, after `after`; `last` when more may follow. */
  page(
    ownerKey: string,
    limit: number,
    after?: ListPosition,
    purpose?: 'source',
  ): Promise<{ deposits: Deposit[]; last?: ListPosition | undefined }>;
}

/** What a backend's list may be narrowed to: a status (deposits only). */
export interface BackendListFilter {
  purpose?: 'source' | undefined;
  status?: DepositStatus | undefined;
}

/**
 * A backend's deposits (or its payment sources), newest first, a page at a time, whatever their
 * connection: the list of a backend that reads by its own identity. A page may hold fewer than
 * `limit` when a status is asked (the index is read `limit` at a time, then filtered), with `last`
 * while more may follow.
 */
export interface BackendDeposits {
  page(
    backendKey: string,
    limit: number,
    after?: ListPosition,
    filter?: BackendListFilter,
  ): Promise<{ deposits: Deposit[]; last?: ListPosition | undefined }>;
}
