/**
 * In-memory fakes of the deposit ports, the ones every unit test of `shared/deposits/` uses: no
 * network, no AWS, no real time. They keep the adapters' contracts (conditional writes on the
 * version, claim and lease conditions, a queue or schedule only for the steps a handler may reach)
 * and record what crossed them, so tests assess what a step did. Here the deposits' own records,
 * over the connection's entities of `connection-fakes.ts`; the queues, schedules, vault, events and
 * provider are in `step-fakes.ts` (re-exported).
 */
import type { Deposit } from '#shared/deposits/model/deposit';
import type {
  BackendDeposits,
  DepositRecords,
  DueDeposits,
  IdempotencyRecords,
  ListPosition,
  OwnerDeposits,
} from '#shared/deposits/ports/records';

import { copy, FakeConnectionItems } from './connection-fakes.ts';

export { bankKeyOf } from './connection-fakes.ts';
export * from './step-fakes.ts';

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
export class FakeDepositsTable extends FakeConnectionItems {
  readonly items = new Map<string, Deposit>();
  readonly keys = new Map<string, string>();
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

  /** The client references taken, by `<backend or owner>#<reference>`. */
  readonly references = new Map<string, string>();

  readonly idempotency: IdempotencyRecords = {
    createOnce: async (deposit) => {
      const key = `${deposit.ownerKey}#${deposit.idempotencyKey}`;
      const taken = this.keys.get(key);
      if (taken !== undefined) return { created: false, depositId: taken, taken: 'idempotencyKey' };
      const reference =
        deposit.clientReference === undefined
          ? undefined
          : `${deposit.backendKey ?? deposit.ownerKey}#${deposit.clientReference}`;
      const holder = reference === undefined ? undefined : this.references.get(reference);
      if (holder !== undefined) return { created: false, depositId: holder, taken: 'clientReference' };
      this.keys.set(key, deposit.id);
      if (reference !== undefined) this.references.set(reference, deposit.id);
      this.items.set(deposit.id, copy(deposit));
      return { created: true };
    },
  };

  /** The sweeper's index as it stood when it began to lag (`lagDueIndex`): the writes since do not show. */
  private dueIndexView: Map<string, Deposit> | undefined;

  /**
   * The sweeper's index lags from now on (an eventually consistent GSI): it answers the items as
   * they are now, whatever is written after. Called again, it catches up, and lags from there.
   */
  lagDueIndex(): void {
    this.dueIndexView = new Map([...this.items].map(([id, deposit]) => [id, copy(deposit)]));
  }

  readonly due: DueDeposits = {
    // Oldest first, by check time then id (the index's sort key, then the item's key); a position
    // is the last deposit's, as the index's LastEvaluatedKey.
    findDue: async (now, limit, after) => {
      const key = (deposit: Pick<Deposit, 'checkAt' | 'id'>) => [deposit.checkAt ?? 0, deposit.id] as const;
      const order = (a: readonly [number, string], b: readonly [number, string]) =>
        a[0] - b[0] || a[1].localeCompare(b[1]);
      const from = after === undefined ? undefined : (JSON.parse(after) as [number, string]);
      const due = [...(this.dueIndexView ?? this.items).values()]
        .filter((deposit) => deposit.checkAt !== undefined && deposit.checkAt <= now)
        .filter((deposit) => from === undefined || order(key(deposit), from) > 0)
        .sort((a, b) => order(key(a), key(b)));
      const deposits = due.slice(0, limit).map(copy);
      const last = deposits.at(-1);
      return { deposits, last: due.length > limit && last ? JSON.stringify(key(last)) : undefined };
    },
    defer: async (deposit, checkAt) => {
      const stored = this.items.get(deposit.id);
      if (stored?.version !== deposit.version) return false;
      // Deferred since the look that found it (an index that lags shows it due still): not again.
      if ((stored.redrives ?? 0) !== (deposit.redrives ?? 0)) return false;
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

  /** The backend index: a backend's deposits (or sources), newest first; the status filtered as the index does. */
  readonly backends: BackendDeposits = {
    page: async (backendKey, limit, after, filter = {}) => {
      const page = newestFirstPage(
        [...this.items.values()].filter(
          (deposit) => deposit.backendKey === backendKey && deposit.purpose === filter.purpose,
        ),
        limit,
        after,
      );
      const wanted = (deposit: Deposit) => filter.status === undefined || deposit.status === filter.status;
      return { deposits: page.deposits.filter(wanted), last: page.last };
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
