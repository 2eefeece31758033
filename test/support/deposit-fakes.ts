/**
 * In-memory fakes of the deposit ports, the ones every unit test of `shared/deposits/` uses: no
 * network, no AWS, no real time. They keep the adapters' contracts (conditional writes on the
 * version, claim and lease conditions, a queue or schedule only for the steps a handler may reach)
 * and record what crossed them, so tests assess what a step did.
 */
import type {
  BeneficiaryClaim,
  Deposit,
  DepositEvent,
  Follower,
  StepMessageTo,
  WorkStep,
} from '#shared/deposits/model';
import { eventToRelay } from '#shared/deposits/outbox';
import type {
  BankMemory,
  BeneficiaryClaims,
  ConnectionLeases,
  CredentialOpener,
  CredentialSealer,
  DepositEvents,
  DepositObserver,
  DepositRecords,
  DueDeposits,
  IdempotencyRecords,
  ListPosition,
  OwnerDeposits,
  Provider,
  SharedWakes,
  StepQueues,
  WakeCancels,
  WakeScheduler,
} from '#shared/deposits/ports';
import type { AccountsMetadata } from '#shared/spec/schemas';

const copy = <T>(value: T): T => structuredClone(value);

const newestFirst = (a: Deposit, b: Deposit) => b.createdAt - a.createdAt || b.id.localeCompare(a.id);

/**
 * A page of `deposits` as an index gives it: newest first (by creation, then id, as the index's sort
 * key and item key order), `limit` of them after the position `after`, and the position it ended at
 * while more follow.
 */
export function newestFirstPage(deposits: Deposit[], limit: number, after?: ListPosition) {
  const all = [...deposits].sort(newestFirst);
  const start = after
    ? all.findIndex(
        (deposit) => newestFirst(deposit, { createdAt: after.createdAt, id: after.depositId } as Deposit) > 0,
      )
    : 0;
  const from = start < 0 ? all.length : start;
  const page = all.slice(from, from + limit).map(copy);
  const last = page.at(-1);
  const more = from + limit < all.length;
  return {
    deposits: page,
    last: more && last ? { depositId: last.id, createdAt: last.createdAt } : undefined,
  };
}

/** The deposits table's entities, sharing one in-memory state, with DynamoDB's conditions. */
export class FakeDepositsTable {
  readonly items = new Map<string, Deposit>();
  readonly keys = new Map<string, string>();
  readonly claimItems = new Map<string, BeneficiaryClaim>();
  readonly leaseItems = new Map<string, { holder: string; until: number }>();
  /** Every successful deposit write, in order. */
  readonly writes: Deposit[] = [];

  readonly deposits: DepositRecords = {
    get: async (id) => {
      const found = this.items.get(id);
      return found && copy(found);
    },
    save: async (deposit, expectedVersion) => {
      if (this.items.get(deposit.id)?.version !== expectedVersion) return false;
      this.items.set(deposit.id, copy(deposit));
      this.writes.push(copy(deposit));
      return true;
    },
  };

  readonly idempotency: IdempotencyRecords = {
    createOnce: async (deposit) => {
      const key = `${deposit.ownerKey}#${deposit.idempotencyKey}`;
      const taken = this.keys.get(key);
      if (taken !== undefined) return { created: false, depositId: taken };
      this.keys.set(key, deposit.id);
      this.items.set(deposit.id, copy(deposit));
      return { created: true };
    },
  };

  readonly due: DueDeposits = {
    findDue: async (now, limit) =>
      [...this.items.values()]
        .filter((deposit) => deposit.checkAt !== undefined && deposit.checkAt <= now)
        .sort((a, b) => (a.checkAt ?? 0) - (b.checkAt ?? 0))
        .slice(0, limit)
        .map(copy),
    defer: async (deposit, checkAt) => {
      const stored = this.items.get(deposit.id);
      if (stored?.version !== deposit.version) return false;
      stored.checkAt = checkAt;
      stored.redrives = (deposit.redrives ?? 0) + 1;
      return true;
    },
  };

  /** The owner index: newest first (by creation, then id, as the index's sort key and item key order). */
  readonly owners: OwnerDeposits = {
    page: async (ownerKey, limit, after, purpose) =>
      newestFirstPage(
        [...this.items.values()].filter(
          (deposit) => deposit.ownerKey === ownerKey && deposit.purpose === purpose,
        ),
        limit,
        after,
      ),
  };

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
    recall: async (ownerKey, now) => {
      const found = this.bankItems.get(ownerKey);
      return found && found.until > now ? copy(found.metadata) : undefined;
    },
    remember: async (ownerKey, metadata, until) => {
      this.bankItems.set(ownerKey, { metadata: copy(metadata), until });
    },
    forget: async (ownerKey) => {
      this.bankItems.delete(ownerKey);
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
      const ownClaim = held?.depositId === claim.depositId && held.state === 'creating';
      // Its id, found by whichever deposit looked it up, completes a created beneficiary's record.
      const completes = claim.beneficiaryId !== undefined && held?.state === 'created' && !held.beneficiaryId;
      if (!ownClaim && !completes) return false;
      this.claimItems.set(key, copy(claim));
      return true;
    },
    markUsed: async (ownerKey, walletAccountId) => {
      const held = this.claimItems.get(`${ownerKey}#${walletAccountId}`);
      if (held) held.used = true;
    },
    forget: async (ownerKey, walletAccountId, beneficiaryId) => {
      const key = `${ownerKey}#${walletAccountId}`;
      const held = this.claimItems.get(key);
      if (held?.state === 'created' && held.beneficiaryId === beneficiaryId) this.claimItems.delete(key);
    },
    release: async (ownerKey, walletAccountId, depositId) => {
      const key = `${ownerKey}#${walletAccountId}`;
      const held = this.claimItems.get(key);
      if (held?.depositId === depositId && held.state === 'creating') this.claimItems.delete(key);
    },
  };

  readonly leases: ConnectionLeases = {
    acquire: async (ownerKey, holder, until, now, reclaimable) => {
      const held = this.leaseItems.get(ownerKey);
      const free =
        !held || held.holder === holder || held.holder === (reclaimable ?? holder) || held.until < now;
      if (!free) return false;
      this.leaseItems.set(ownerKey, { holder, until });
      return true;
    },
    release: async (ownerKey, holder) => {
      if (this.leaseItems.get(ownerKey)?.holder === holder) this.leaseItems.delete(ownerKey);
    },
  };

  /** Puts a deposit as it stands, as if earlier steps had written it. */
  put(deposit: Deposit): Deposit {
    this.items.set(deposit.id, copy(deposit));
    return deposit;
  }

  current(id: string): Deposit {
    const found = this.items.get(id);
    if (!found) throw new Error(`no deposit ${id}`);
    return copy(found);
  }
}

export interface Sent<S extends WorkStep> {
  message: StepMessageTo<S>;
  delaySeconds: number;
}

/** Step queues that take messages only for the steps given, as a handler's SQS adapter does. */
export class FakeQueues<S extends WorkStep> implements StepQueues<S> {
  readonly sent: Sent<S>[] = [];

  constructor(private readonly steps: readonly S[]) {}

  async send(message: StepMessageTo<S>, delaySeconds = 0): Promise<void> {
    if (!this.steps.includes(message.step)) throw new Error(`no queue for ${message.step} here`);
    this.sent.push({ message: copy(message), delaySeconds });
  }
}

/** One-shot schedules, idempotent per name, only to the steps given. */
export class FakeScheduler<S extends WorkStep> implements WakeScheduler<S> {
  readonly schedules = new Map<string, { at: number; message: StepMessageTo<S> }>();

  constructor(private readonly steps: readonly S[]) {}

  async scheduleAt(name: string, at: Date, message: StepMessageTo<S>): Promise<void> {
    if (!this.steps.includes(message.step)) throw new Error(`no schedule target for ${message.step} here`);
    if (!this.schedules.has(name)) this.schedules.set(name, { at: at.getTime(), message: copy(message) });
  }
}

/** Deletions of wake-up schedules, recorded; with a scheduler, its schedules of those names go. */
export class FakeWakeCancels implements WakeCancels {
  readonly cancelled: string[] = [];

  constructor(private readonly scheduler?: { schedules: Map<string, unknown> }) {}

  async cancel(names: readonly string[]): Promise<void> {
    for (const name of names) {
      this.cancelled.push(name);
      this.scheduler?.schedules.delete(name);
    }
  }
}

/** Sealing that is visibly not plaintext and bound to its deposit, like the Encryption SDK's context. */
export class FakeVault implements CredentialSealer, CredentialOpener {
  async seal(depositId: string, secret: unknown): Promise<string> {
    return `sealed:${depositId}:${Buffer.from(JSON.stringify(secret)).toString('base64')}`;
  }

  async open<T>(depositId: string, sealed: string): Promise<T> {
    const [tag, owner, body] = sealed.split(':');
    if (tag !== 'sealed' || owner !== depositId || body === undefined) {
      throw new Error('sealed credentials belong to another deposit');
    }
    return JSON.parse(Buffer.from(body, 'base64').toString('utf8')) as T;
  }
}

/**
 * What the caller hears: the events the deposit writes carry (their outbox), in the order written,
 * as the table's stream and the outbox relay deliver them.
 */
export class StreamedEvents {
  constructor(private readonly table: FakeDepositsTable) {}

  get published(): DepositEvent[] {
    return this.table.writes.flatMap((deposit) => {
      const event = eventToRelay(deposit);
      return event ? [event] : [];
    });
  }

  types(): string[] {
    return this.published.map((event) => event.type);
  }
}

/** The webhook queue as the relay sees it. */
export class FakeEventQueue implements DepositEvents {
  readonly published: DepositEvent[] = [];

  async publish(event: DepositEvent): Promise<void> {
    this.published.push(copy(event));
  }
}

export class RecordingObserver implements DepositObserver {
  readonly transitions: string[] = [];

  transitioned(status: string, step: string): void {
    this.transitions.push(`${status}/${step}`);
  }
}

type ProviderMethod = keyof Provider;
type Script = (...args: unknown[]) => unknown;

/**
 * The provider, scripted per operation: each call takes the next scripted answer (a value to
 * return, or an error to throw); an unscripted call fails the test. Calls are recorded.
 */
export class FakeProvider {
  readonly calls: { method: ProviderMethod; args: unknown[] }[] = [];
  private readonly scripts = new Map<ProviderMethod, Script[]>();

  answer(method: ProviderMethod, ...answers: unknown[]): this {
    const queue = this.scripts.get(method) ?? [];
    for (const answer of answers) {
      queue.push(() => {
        if (answer instanceof Error) throw answer;
        return answer;
      });
    }
    this.scripts.set(method, queue);
    return this;
  }

  callsOf(method: ProviderMethod) {
    return this.calls.filter((call) => call.method === method).map((call) => call.args);
  }

  private next(method: ProviderMethod, args: unknown[]) {
    this.calls.push({ method, args: copy(args) });
    const script = this.scripts.get(method)?.shift();
    if (!script) throw new Error(`unexpected provider call ${method}`);
    return Promise.resolve(script(...args));
  }

  readonly port = {
    getMetadata: (...args: unknown[]) => this.next('getMetadata', args),
    listBeneficiaries: (...args: unknown[]) => this.next('listBeneficiaries', args),
    createBeneficiary: (...args: unknown[]) => this.next('createBeneficiary', args),
    createTransfer: (...args: unknown[]) => this.next('createTransfer', args),
    createAutoflowTransfer: (...args: unknown[]) => this.next('createAutoflowTransfer', args),
    getOperation: (...args: unknown[]) => this.next('getOperation', args),
  } as unknown as Provider;
}
