/**
 * In-memory fakes of the connection's entities in the deposits table, with DynamoDB's conditions: the
 * beneficiary claims, the connection's lease and who waits for it, the bank's remembered metadata and
 * the shared wake-ups. `FakeDepositsTable` (deposit-fakes.ts) adds the deposits' own records to them.
 */
import type { BeneficiaryClaim } from '#shared/deposits/model/deposit';
import type { Follower } from '#shared/deposits/model/messages';
import type {
  BankMemory,
  BeneficiaryClaims,
  ConnectionLeases,
  LeaseWaiter,
  MemoryOwner,
  SharedWakes,
} from '#shared/deposits/ports/connection';
import type { AccountsMetadata } from '#shared/provider/interface/schemas';

export const copy = <T>(value: T): T => structuredClone(value);

/** The key of `bankItems`: the connection and its user, as `BANK#<owner>#<reader>`. */
export const bankKeyOf = (owner: MemoryOwner) => `${owner.ownerKey}#${owner.readerKey}`;

/** The connection's entities, sharing one in-memory state. */
export class FakeConnectionItems {
  readonly claimItems = new Map<string, BeneficiaryClaim>();
  /** The claim under `key` unless freed (a released claim stays, claimable at once: `claimedAt` 0). */
  heldClaim(key: string): BeneficiaryClaim | undefined {
    const claim = this.claimItems.get(key);
    return claim?.state === 'creating' && claim.claimedAt === 0 ? undefined : claim;
  }
  readonly leaseItems = new Map<string, { holder: string; until: number }>();
  /** Who waits for each connection's lease, by deposit (a free lease keeps its waiters, as its item does). */
  readonly leaseWaits = new Map<string, Map<string, LeaseWaiter>>();

  readonly bankItems = new Map<string, { metadata: AccountsMetadata; until: number }>();

  /** Shared wake-ups by `<owner>#<wallet account>`, as `shared-wakes.ts` keeps them. */
  readonly wakeItems = new Map<string, { by: string; at: number; followers: Follower[] }>();

  readonly sharedWakes: SharedWakes = {
    arm: async (ownerKey, walletAccountId, by, at, now) => {
      const key = `${ownerKey}#${walletAccountId}`;
      const pending = this.wakeItems.get(key);
      if (!pending || pending.at < now) {
        this.wakeItems.set(key, { by, at, followers: [] });
        return true;
      }
      return pending.by === by && pending.at === at;
    },
    follow: async (ownerKey, walletAccountId, follower, at, now) => {
      const pending = this.wakeItems.get(`${ownerKey}#${walletAccountId}`);
      if (!pending || pending.at !== at || pending.at <= now || pending.by === follower.depositId)
        return false;
      if (pending.followers.length >= 100) return false;
      pending.followers.push(copy(follower));
      return true;
    },
    take: async (ownerKey, walletAccountId, by) => {
      const key = `${ownerKey}#${walletAccountId}`;
      const pending = this.wakeItems.get(key);
      if (pending?.by !== by) return [];
      this.wakeItems.delete(key);
      return pending.followers;
    },
  };

  readonly banks: BankMemory = {
    recall: async (owner, now) => {
      const found = this.bankItems.get(bankKeyOf(owner));
      return found && found.until > now ? copy(found.metadata) : undefined;
    },
    remember: async (owner, metadata, until) => {
      this.bankItems.set(bankKeyOf(owner), { metadata: copy(metadata), until });
    },
    forget: async (owner) => {
      this.bankItems.delete(bankKeyOf(owner));
    },
  };

  readonly claims: BeneficiaryClaims = {
    get: async (ownerKey, walletAccountId) => {
      const found = this.claimItems.get(`${ownerKey}#${walletAccountId}`);
      return found && copy(found);
    },
    claim: async (claim, staleBefore) => {
      const key = `${claim.ownerKey}#${claim.walletAccountId}`;
      const held = this.claimItems.get(key);
      if (held && !(held.state === 'creating' && held.claimedAt < staleBefore)) return false;
      this.claimItems.set(key, copy(claim));
      return true;
    },
    update: async (claim) => {
      const key = `${claim.ownerKey}#${claim.walletAccountId}`;
      const held = this.claimItems.get(key);
      // A claim given up (`release`: claimable at once) is no longer its holder's to keep creating.
      const ownClaim =
        held?.depositId === claim.depositId &&
        held.state === 'creating' &&
        (claim.state === 'created' || held.claimedAt > 0);
      // Its id, found by whichever deposit looked it up, completes a created beneficiary's record.
      const completes = claim.beneficiaryId !== undefined && held?.state === 'created' && !held.beneficiaryId;
      if (!ownClaim && !completes) return false;
      this.claimItems.set(key, copy(claim));
      return true;
    },
    refresh: async (ownerKey, walletAccountId, depositId, claimedAt) => {
      const held = this.claimItems.get(`${ownerKey}#${walletAccountId}`);
      // Never a claim given up (`release`: `claimedAt` 0).
      const own = held?.depositId === depositId && held.state === 'creating' && held.claimedAt > 0;
      if (!own || held.claimedAt >= claimedAt) return false;
      held.claimedAt = claimedAt;
      return true;
    },
    markUsed: async (ownerKey, walletAccountId) => {
      const held = this.claimItems.get(`${ownerKey}#${walletAccountId}`);
      if (held) held.used = true;
    },
    coolDown: async (ownerKey, walletAccountId, beneficiaryId, until) => {
      const held = this.claimItems.get(`${ownerKey}#${walletAccountId}`);
      if (held?.state !== 'created' || held.beneficiaryId !== beneficiaryId) return;
      if ((held.cooldownUntil ?? 0) < until) held.cooldownUntil = until;
    },
    forget: async (ownerKey, walletAccountId, beneficiaryId) => {
      const key = `${ownerKey}#${walletAccountId}`;
      const held = this.claimItems.get(key);
      if (held?.state === 'created' && held.beneficiaryId === beneficiaryId) this.claimItems.delete(key);
    },
    release: async (ownerKey, walletAccountId, depositId) => {
      const key = `${ownerKey}#${walletAccountId}`;
      const held = this.claimItems.get(key);
      if (held?.depositId === depositId && held.state === 'creating') held.claimedAt = 0;
    },
  };

  readonly leases: ConnectionLeases = {
    acquire: async (ownerKey, holder, until, now, reclaimable) => {
      const held = this.leaseItems.get(ownerKey);
      const free =
        !held || held.holder === holder || held.holder === (reclaimable ?? holder) || held.until < now;
      if (!free) return false;
      this.leaseItems.set(ownerKey, { holder, until });
      if (holder.includes('#')) this.leaseWaits.get(ownerKey)?.delete(holder.slice(0, holder.indexOf('#')));
      return true;
    },
    release: async (ownerKey, holder) => {
      if (this.leaseItems.get(ownerKey)?.holder !== holder) return [];
      this.leaseItems.delete(ownerKey);
      return [...(this.leaseWaits.get(ownerKey)?.values() ?? [])].map((waiter) => ({ ...waiter }));
    },
    wait: async (ownerKey, waiter, now) => {
      const held = this.leaseItems.get(ownerKey);
      if (!held || held.until < now) return false;
      const waits = this.leaseWaits.get(ownerKey) ?? new Map<string, LeaseWaiter>();
      this.leaseWaits.set(ownerKey, waits.set(waiter.depositId, { ...waiter }));
      return true;
    },
    wake: async (ownerKey, depositId) => {
      const waits = this.leaseWaits.get(ownerKey);
      const waiter = waits?.get(depositId);
      waits?.delete(depositId);
      return waiter;
    },
    holderOf: async (ownerKey) => {
      const held = this.leaseItems.get(ownerKey);
      return held ? { ...held } : undefined;
    },
  };
}
