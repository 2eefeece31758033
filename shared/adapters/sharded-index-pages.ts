/**
 * A page of an index whose deposits are spread over shards (`byStatus`'s `opsBucket`, `byBackend`'s
 * `backendListedBy`), newest first: every shard queried from the page's position on, merged in one
 * order (newest first, then by id), the first `limit` taken. A shard is read from the position's
 * instant (its items of that instant at or after the position's id in the order, seen already, are
 * skipped). A shard that stopped early (its page full, or its query budget spent on a filter that
 * keeps few) bounds the page: nothing older than where it stopped is taken, as that shard may hold
 * some of it, and the next page starts there. A shard stops only at the end of an instant (a
 * millisecond), as an index gives one instant's items in an order of its own.
 */
/** Where a list stands: the last deposit it gave (or the index item it stopped at). */
export interface IndexPosition {
  depositId: string;
  createdAt: number;
}

/** One query of one shard: its partition, at most `limit` items, from `start` (the index's key) on. */
export type ShardQuery = (query: {
  partition: string;
  limit: number;
  start?: Record<string, unknown> | undefined;
}) => Promise<{ Items?: Record<string, unknown>[]; LastEvaluatedKey?: Record<string, unknown> }>;

export interface ShardedReading {
  /** Whether the queries filter (a step, a status): then each reads `filteredPage` items at a time. */
  filtered: boolean;
  /** Index items read per query when filtering (small items: keys and the filtered field). */
  filteredPage: number;
  /** Queries one page may make in a shard; past them the shard stops where it looked last. */
  maxQueries: number;
}

/** Where a list stands after this index item (table keys and `createdAt`: any of the lists' indexes). */
export function positionOf(item: Record<string, unknown>): IndexPosition {
  return { depositId: String(item.pk).slice('DEPOSIT#'.length), createdAt: Number(item.createdAt) };
}

/** Newest first, then by id: one order over every shard. */
export function newerFirst(a: IndexPosition, b: IndexPosition): number {
  return b.createdAt - a.createdAt || (a.depositId < b.depositId ? 1 : a.depositId > b.depositId ? -1 : 0);
}

/** The page's index items, in the one order, and where the next page starts when more may follow. */
export async function mergedPage(
  partitions: string[],
  limit: number,
  after: IndexPosition | undefined,
  query: ShardQuery,
  reading: ShardedReading,
): Promise<{ items: Record<string, unknown>[]; last?: IndexPosition | undefined }> {
  const pages = await Promise.all(
    partitions.map((partition) => shardPage(partition, limit, after, query, reading)),
  );
  const stops = pages.flatMap((page) => (page.stoppedAt ? [page.stoppedAt] : []));
  const bound = stops.sort(newerFirst)[0];
  const merged = pages
    .flatMap((page) => page.items)
    .map((item) => ({ item, position: positionOf(item) }))
    .sort((a, b) => newerFirst(a.position, b.position));
  const eligible = bound ? merged.filter(({ position }) => newerFirst(position, bound) <= 0) : merged;
  const taken = eligible.slice(0, limit);
  const more = eligible.length > taken.length || bound !== undefined;
  const last = !more ? undefined : taken.length === limit ? taken.at(-1)?.position : bound;
  return { items: taken.map(({ item }) => item), last };
}

/**
 * Up to `limit` items of one shard after the position (more when the last one's instant has more),
 * and where it stopped if more may follow: at the end of an instant, every item of it read, as the
 * index orders an instant's items its own way (by its sort key only), not by id as the one order
 * does. Stopped inside an instant, the shard would bound the page at an item of it that comes before
 * others not read yet, and the next page, starting after that item, would skip them.
 */
async function shardPage(
  partition: string,
  limit: number,
  after: IndexPosition | undefined,
  query: ShardQuery,
  reading: ShardedReading,
): Promise<{ items: Record<string, unknown>[]; stoppedAt?: IndexPosition | undefined }> {
  const items: Record<string, unknown>[] = [];
  const unseen = (item: Record<string, unknown>) => !after || newerFirst(positionOf(item), after) > 0;
  let start: Record<string, unknown> | undefined;
  for (let queries = 0; queries < reading.maxQueries; queries += 1) {
    const { Items = [], LastEvaluatedKey } = await query({
      partition,
      // Unfiltered, every item counts: what the page lacks, the ties of the position's instant seen
      // already, and one more, which shows whether the last one's instant ended.
      limit: reading.filtered ? reading.filteredPage : limit - items.length + (after ? 1 : 0) + 1,
      start,
    });
    items.push(...Items.filter(unseen));
    if (!LastEvaluatedKey) return { items };
    start = LastEvaluatedKey;
    if (items.length >= limit) break;
  }
  if (!start) return { items };
  // Full, or its query budget spent (a filter that keeps few): it stops where the page's last item
  // is, or where it looked last, once that instant's items are all read.
  const instant = Number((items[limit - 1] ?? start).createdAt);
  const within = items.filter((item) => Number(item.createdAt) >= instant);
  while (Number(start.createdAt) >= instant) {
    const { Items = [], LastEvaluatedKey } = await query({ partition, limit: reading.filteredPage, start });
    // The shard's end: every item read is the page's to take.
    if (!LastEvaluatedKey) return { items: [...items, ...Items.filter(unseen)] };
    within.push(...Items.filter((item) => Number(item.createdAt) === instant && unseen(item)));
    start = LastEvaluatedKey;
  }
  return { items: within, stoppedAt: endOf(instant) };
}

/**
 * The position after every item of an instant and before every older one: one of the instant
 * before, ahead of any id there (ids are ASCII). A page from it starts at the instant before.
 */
function endOf(instant: number): IndexPosition {
  return { createdAt: instant - 1, depositId: '\uffff' };
}
