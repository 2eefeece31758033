/**
 * What the console draws above its list: how many deposits each status bucket holds (at a step, in a
 * range of creation times), the deposits created over that range by the bucket they are in now, and
 * how long the done ones took, step by step. Counted from the status index (keys and step only, at
 * most `statsBounds.count` a bucket), the durations from the newest done deposits' histories.
 *
 * 1. read each bucket's creation times; 2. count them, and spread them over `statsBounds.bins` equal
 * bins of the range (the range asked, else from the oldest seen to now, ten minutes at least);
 * 3. read the newest done deposits and take, from each one's history, the time spent at each step
 * and in all.
 */
import type { Clock } from '#shared/clock';
import { type Deposit, DepositStep, isSource } from '#shared/deposits/model/deposit';
import { StatusBucket } from './model.ts';
import type { StatusDeposits, StatusTimes } from './ports.ts';

export const statsBounds = {
  /** Creation times read per bucket at most: a count past it is shown as "at least". */
  count: 10_000,
  bins: 24,
  /** Done deposits whose histories the durations come from: the newest in the range. */
  doneSample: 100,
};

export interface StatsContext {
  times: StatusTimes;
  byStatus: StatusDeposits;
  clock: Pick<Clock, 'now'>;
}

export interface StatsRequest {
  step?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

const iso = (at: number) => new Date(at).toISOString();
const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** The value at `fraction` of the sorted values (nearest rank). */
function rank(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? 0;
}

function spread(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return { medianSeconds: seconds(rank(sorted, 0.5)), p90Seconds: seconds(rank(sorted, 0.9)) };
}

/** The time a deposit spent at each step of its history, and from its create to its last entry. */
export function stepTimes(deposit: Pick<Deposit, 'history' | 'createdAt'>) {
  const byStep = new Map<string, number>();
  deposit.history.forEach((entry, index) => {
    const next = deposit.history[index + 1];
    if (next) byStep.set(entry.step, (byStep.get(entry.step) ?? 0) + Math.max(0, next.at - entry.at));
  });
  const last = deposit.history.at(-1)?.at ?? deposit.createdAt;
  return { byStep, totalMs: Math.max(0, last - deposit.createdAt) };
}

function timeToDone(deposits: Deposit[]) {
  const times = deposits.filter((deposit) => !isSource(deposit)).map(stepTimes);
  const steps = DepositStep.options.flatMap((step) => {
    const spent = times.flatMap((time) => (time.byStep.has(step) ? [time.byStep.get(step) ?? 0] : []));
    return spent.length ? [{ step, deposits: spent.length, ...spread(spent) }] : [];
  });
  return {
    deposits: times.length,
    ...(times.length ? { total: spread(times.map((time) => time.totalMs)) } : {}),
    steps,
  };
}

export async function depositStats(request: StatsRequest, ctx: StatsContext) {
  const now = ctx.clock.now();
  const from = request.from === undefined ? undefined : Date.parse(request.from);
  const to = request.to === undefined ? undefined : Date.parse(request.to);
  const step = request.step as DepositStep | undefined;
  const buckets = StatusBucket.options;
  // The done sample before the counts: a deposit done is done for good, so every deposit the sample
  // holds is in the done count read after it, while deposits keep ending between the two reads.
  const done =
    step === undefined || step === 'completed'
      ? await ctx.byStatus.page({ bucket: 'done', from, to, limit: statsBounds.doneSample })
      : { deposits: [] };
  const read = await Promise.all(
    buckets.map((bucket) => ctx.times.createdTimes({ bucket, step, from, to }, statsBounds.count)),
  );
  const counts = Object.fromEntries(
    buckets.map((bucket, index) => {
      const { times = [], capped = false } = read[index] ?? {};
      return [bucket, { count: times.length, capped }];
    }),
  ) as Record<StatusBucket, { count: number; capped: boolean }>;

  const oldest = read.reduce((min, { times }) => times.reduce((m, at) => Math.min(m, at), min), now);
  const newest = read.reduce((max, { times }) => times.reduce((m, at) => Math.max(m, at + 1), max), now);
  const end = to ?? newest;
  const start = from ?? Math.min(oldest, end - 600_000);
  const binMs = Math.max(1_000, Math.ceil((end - start) / statsBounds.bins));
  const bins = Array.from({ length: statsBounds.bins }, (_, index) => ({
    from: iso(start + index * binMs),
    ...(Object.fromEntries(buckets.map((bucket) => [bucket, 0])) as Record<StatusBucket, number>),
  }));
  buckets.forEach((bucket, index) => {
    for (const at of read[index]?.times ?? []) {
      const bin = bins[Math.min(statsBounds.bins - 1, Math.floor((at - start) / binMs))];
      if (bin && at >= start) bin[bucket] += 1;
    }
  });

  return {
    now: iso(now),
    counts,
    overTime: { from: iso(start), to: iso(start + binMs * statsBounds.bins), binSeconds: binMs / 1000, bins },
    timeToDone: timeToDone(done.deposits),
  };
}
