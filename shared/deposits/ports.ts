/**
 * The ports through which the deposit steps reach the world, one per thing they touch: the deposits
 * table's entities (deposits, idempotency records, beneficiary claims, connection leases), the step
 * queues, the wake-up scheduler, the credential vault, the owner digests, the provider, and the
 * webhook queue the outbox relay sends the caller's events to (time comes through `#shared/clock`).
 * Each step's context (in its module, `steps/*.ts`) names only the ports, and the parts of them, it
 * uses. No AWS here: the adapters in `shared/adapters/` implement these.
 */
import type { ProviderClient, ProviderCredentials } from '#shared/provider/client';
import type { AccountsMetadata } from '#shared/provider/interface/schemas';
import type {
  BeneficiaryClaim,
  Deposit,
  DepositEvent,
  DepositStatus,
  DepositStep,
  Follower,
  StepMessageTo,
  WalletAccount,
  WorkStep,
} from './model.ts';

export type DepositCredentials = ProviderCredentials;

/**
 * What a caller's access token and user secret are known by: a deposit's `ownerKey` (and so its
 * connection's leases, claims, idempotency records, list) and `readerKey` are their keyed digests
 * (an HMAC under a key the table does not hold), so that whoever reads the table, or a backup,
 * cannot confirm a guessed or leaked token against it. The routes that take a token use it.
 */
export interface OwnerDigests {
  /** The key of a token or user secret. */
  of(secret: string): string;
  /** Whether `stored` is the key of `secret`, compared in constant time (false for none). */
  matches(secret: string, stored: string | undefined): boolean;
}

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
   * or is moving (a transaction, such as the one that ends it, writes it meanwhile).
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

/**
 * The wake-up a payment source armed for the end of its cool-down, per connection and wallet
 * account, shared: deposits (and other sources) that must wait for the same instant follow it
 * instead of arming their own, and the source wakes them when it is woken.
 */
export interface SharedWakes {
  /** Records that source `by` wakes at `at` (idempotent for the same source); false if another source's is pending. */
  arm(ownerKey: string, walletAccountId: string, by: string, at: number, now: number): Promise<boolean>;
  /**
   * Joins the pending wake-up if it comes exactly `at` (the instant the follower waits for), that
   * instant is still ahead of `now`, it is another's (a source never follows its own), and it has
   * room; false otherwise (then the follower arms its own). A wake-up whose instant has passed may
   * never be taken (its source died, or lost its schedule): nobody joins it.
   */
  follow(
    ownerKey: string,
    walletAccountId: string,
    follower: Follower,
    at: number,
    now: number,
  ): Promise<boolean>;
  /** The followers of source `by`'s wake-up, which ends with this (none if it is not `by`'s). */
  take(ownerKey: string, walletAccountId: string, by: string): Promise<Follower[]>;
}

/** Wake-up schedules that will not be needed: those of a cancelled deposit. */
export interface WakeCancels {
  /** Deletes these schedules; a name with no schedule (it fired, or never was one) is fine. */
  cancel(names: readonly string[]): Promise<void>;
}

/**
 * Whose bank memory: the connection (its token's key) and its user (its user secret's key) together,
 * so that a request with another user secret on the same token remembers nothing, and asks the bank
 * (which refuses a wrong secret at once) instead of starting at the transfer (issue 32).
 */
export type MemoryOwner = Pick<Deposit, 'ownerKey' | 'readerKey'>;

/**
 * What a connection's bank said of itself (its metadata), remembered for a while: the next deposit
 * from that connection and user goes on without asking the bank again.
 */
export interface BankMemory {
  /** The metadata remembered for this connection and user, if it is still fresh at `now`. */
  recall(owner: MemoryOwner, now: number): Promise<AccountsMetadata | undefined>;
  remember(owner: MemoryOwner, metadata: AccountsMetadata, until: number): Promise<void>;
  /** Forgets it: the bank's refusal showed that what it said no longer holds. */
  forget(owner: MemoryOwner): Promise<void>;
}

/** Our record of the beneficiary registered per user connection and wallet account. */
export interface BeneficiaryClaims {
  get(ownerKey: string, walletAccountId: string): Promise<BeneficiaryClaim | undefined>;
  /** Claims the registration of a beneficiary; false if another deposit holds a live claim. */
  claim(claim: BeneficiaryClaim, staleBefore: number): Promise<boolean>;
  /**
   * Writes this deposit's own creation claim (refreshed, or completed as `created`, with or without
   * the id), if it still holds it; or, given the id, completes a `created` record that has none yet
   * (whichever deposit looked it up).
   */
  update(claim: BeneficiaryClaim): Promise<boolean>;
  /**
   * Moves the time of this deposit's own creation claim on to `claimedAt` (never back), and nothing
   * else: a copy of the step never writes over what its live run recorded. False if it no longer
   * holds the claim.
   */
  refresh(ownerKey: string, walletAccountId: string, depositId: string, claimedAt: number): Promise<boolean>;
  markUsed(ownerKey: string, walletAccountId: string): Promise<void>;
  /**
   * Moves the cool-down of our record of `beneficiaryId` on to `until`, when the bank says it still
   * cools down (never back; nothing if the record names another beneficiary, or none).
   */
  coolDown(ownerKey: string, walletAccountId: string, beneficiaryId: string, until: number): Promise<void>;
  /**
   * Forgets a created beneficiary the bank says is gone or wrong, if the record still names it;
   * without an id, a created one whose look-up did not find it, if the record still has no id.
   */
  forget(ownerKey: string, walletAccountId: string, beneficiaryId?: string): Promise<void>;
  /**
   * Gives up a creation claim this deposit holds (it failed), so another deposit can create: left
   * claimable at once, with what fitted the wallet before a creation it may have sent (one that
   * landed without its answer is then told apart by the next holder's list). A beneficiary it
   * created is no claim: its record stays (`created`), for the others to look up.
   */
  release(ownerKey: string, walletAccountId: string, depositId: string): Promise<void>;
}

/** One provider operation at a time per user connection. */
export interface ConnectionLeases {
  /**
   * Takes the lease if it is free, expired, already this holder's, or held by `reclaimable` (a
   * deposit taking back its own lease).
   */
  acquire(
    ownerKey: string,
    holder: string,
    until: number,
    now: number,
    reclaimable?: string,
  ): Promise<boolean>;
  /** Releases the lease if this holder has it. */
  release(ownerKey: string, holder: string): Promise<void>;
  /** Who holds the lease, and until when (a lease past its time is free, whoever it names). */
  holderOf(ownerKey: string): Promise<{ holder: string; until: number } | undefined>;
}

/** The queues of the steps `S`: a step message goes to the queue of the step it names. */
export interface StepQueues<S extends WorkStep = WorkStep> {
  send(message: StepMessageTo<S>, delaySeconds?: number): Promise<void>;
}

/** One-shot wake-ups that deliver a step message to the queue of the step it names, at a time. */
export interface WakeScheduler<S extends WorkStep = WorkStep> {
  /** Idempotent per `name`: arming twice is arming once. */
  scheduleAt(name: string, at: Date, message: StepMessageTo<S>): Promise<void>;
}

/**
 * What a sealing holds: the user's provider credentials, or the caller's answers to the bank's
 * question. Bound into the sealing, so that one never opens as the other.
 */
export type SealPurpose = 'credentials' | 'answers';

export interface CredentialSealer {
  seal(purpose: SealPurpose, depositId: string, secret: unknown): Promise<string>;
}

export interface CredentialOpener {
  open<T>(purpose: SealPurpose, depositId: string, sealed: string): Promise<T>;
}

/** The provider's operations, by name; a step's context picks the ones it calls. */
export type Provider = Pick<
  ProviderClient,
  | 'getMetadata'
  | 'listBeneficiaries'
  | 'createBeneficiary'
  | 'createTransfer'
  | 'createAutoflowTransfer'
  | 'getOperation'
>;

/** What the caller hears (webhooks). */
export interface DepositEvents {
  publish(event: DepositEvent): Promise<void>;
}

/** Told of every change of a deposit's status or step (metrics). */
export interface DepositObserver {
  transitioned(status: DepositStatus, step: DepositStep): void;
}

/** The configured wallet accounts, by id. */
export interface Wallets {
  find(id: string): WalletAccount | undefined;
  readonly defaultId: string;
}

/** The tuning of the workflow, from configuration. */
export interface DepositSettings {
  /** Waits longer than this become a schedule; shorter ones a delayed message (at most 15 min). */
  longWaitMs: number;
  /** How long a step may hold the user's connection for one provider call. */
  leaseMs: number;
  /** How long a step waits for a busy connection before it comes back later through its queue. */
  leasePatienceMs: number;
  /** How long a deposit waits for the caller's answer to the provider's question. */
  inputTtlMs: number;
  /** Retries of a read whose outcome was unknown, and of a step refused because the connection was busy. */
  maxRetries: number;
  /** A deposit that has not moved for this long is re-driven by the sweeper. */
  stallAfterMs: number;
  /** Re-drives by the sweeper of a deposit that does not move, before it fails. */
  maxRedrives: number;
  /**
   * The margin past `stallAfterMs` after which a claim to create a beneficiary whose holder has not
   * run is taken over (its holder died): stale `stallAfterMs + claimStaleMs` after it was last taken
   * or refreshed. Its holder refreshes it on every run of the step (each try of a busy connection,
   * each retry), and one that stopped moving (a lost message) is re-driven by the sweeper after
   * `stallAfterMs`: the margin covers the sweeper's period and that run, so a holder merely late is
   * never taken over (`steps/beneficiary-claim.ts`, `claimLifeMs`).
   */
  claimStaleMs: number;
  /** How long a connection's bank metadata is remembered (0: asked on every deposit). */
  bankMemoryMs: number;
  /** How long the bank metadata a payment source asked for is remembered: the deposits it prepares skip the ask. */
  sourceBankMemoryMs: number;
  /** Reads of a transfer operation (`reconcile`) before its outcome is given up as unknown. */
  maxPolls: number;
  /** The longest delay between two reads of a transfer operation (the delay doubles up to it). */
  pollCapMs: number;
}
