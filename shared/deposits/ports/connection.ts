/**
 * The user's connection as the domain reaches it: its lease (one provider operation at a time), our
 * record of its beneficiary per wallet account, its remembered bank metadata, and a payment source's
 * shared wake-up. No AWS here: `shared/adapters/` implements these.
 */
import type { AccountsMetadata } from '#shared/provider/interface/schemas';
import type { BeneficiaryClaim, Deposit } from '../model/deposit.ts';
import type { Follower } from '../model/messages.ts';

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

/**
 * Whose bank memory: the connection (its token's key) and its user (its user secret's key) together,
 * so that a request with another user secret on the same token remembers nothing, and asks the bank
 * (which refuses a wrong secret at once) instead of starting at the transfer.
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
   * (whichever deposit looked it up). A claim its deposit gave up (`release`) is held no longer: only
   * its completion as `created`, a fact about the bank, still lands.
   */
  update(claim: BeneficiaryClaim): Promise<boolean>;
  /**
   * Moves the time of this deposit's own creation claim on to `claimedAt` (never back), and nothing
   * else: a copy of the step never writes over what its live run recorded. False if it no longer
   * holds the claim (one it gave up included).
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

/**
 * A deposit that waits for the connection's lease while another deposit holds it: woken at its step,
 * at the version it waits at, when the holder frees the lease (the longest waiting first).
 */
export interface LeaseWaiter extends Follower {
  /** When it began to wait (epoch ms). */
  since: number;
  /** Its trace (`Deposit.trace`), for the message that wakes it. */
  trace?: string;
}

/**
 * One provider operation at a time per user connection. A holder is `<deposit id>#<run>`; the lease
 * keeps who waits for it, one entry per deposit.
 */
export interface ConnectionLeases {
  /**
   * Takes the lease if it is free, expired, already this holder's, or held by `reclaimable` (a
   * deposit taking back its own lease). Taking it ends the holder's deposit's wait for it.
   */
  acquire(
    ownerKey: string,
    holder: string,
    until: number,
    now: number,
    reclaimable?: string,
  ): Promise<boolean>;
  /** Releases the lease if this holder has it: the deposits that wait for it (none if not its holder's). */
  release(ownerKey: string, holder: string): Promise<LeaseWaiter[]>;
  /**
   * Records that `waiter` waits for the lease, while another holds it at `now` (again: at its new
   * version). False when nobody does: the lease is free, and nothing is recorded.
   */
  wait(ownerKey: string, waiter: LeaseWaiter, now: number): Promise<boolean>;
  /** Takes the deposit's wait off the lease, to wake it: the wait as it stands (none if another took it). */
  wake(ownerKey: string, depositId: string): Promise<LeaseWaiter | undefined>;
  /** Who holds the lease, and until when (a lease past its time is free, whoever it names). */
  holderOf(ownerKey: string): Promise<{ holder: string; until: number } | undefined>;
}
