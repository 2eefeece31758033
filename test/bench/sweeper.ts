/**
 * How many deposits a sweeper run re-drives in its time, by how many it re-drives at once: the
 * domain's `sweep` over the in-memory fakes of its ports, each call held for a modelled latency (a
 * defer is one conditional UpdateItem, a send one SendMessage, a page one Query per shard side by
 * side). It prints figures and asserts nothing. `npx tsx test/bench/sweeper.ts [deposits]`.
 *
 * The latencies are assumptions, not measurements of AWS: a few milliseconds for a DynamoDB write
 * and about twice that for an SQS send, from a Lambda function in the same region; set them with
 * BENCH_DEFER_MS, BENCH_SEND_MS and BENCH_PAGE_MS. A run of 5,000 is extrapolated from the measured
 * rate (one at a time, it would take minutes).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { REDRIVES_AT_ONCE, STOP_WITH_LEFT_MS, sweep } from '#shared/deposits/background/sweeper';
import type { DueDeposit } from '#shared/deposits/ports/records';
import { sweeper } from '#shared/topology';
import { world } from '../support/deposit-world.ts';

const deferMs = Number(process.env.BENCH_DEFER_MS ?? 6);
const sendMs = Number(process.env.BENCH_SEND_MS ?? 12);
const pageMs = Number(process.env.BENCH_PAGE_MS ?? 15);
const deposits = Number(process.argv[2] ?? 1_000);
const widths = [1, 2, 4, REDRIVES_AT_ONCE, 16];
/** What a run has to take deposits in: its timeout less the margin it keeps. */
const workingMs = sweeper.timeoutSeconds * 1000 - STOP_WITH_LEFT_MS;

async function run(width: number) {
  const w = world();
  const base = w.contexts.sweep();
  const now = w.clock.now();
  for (let n = 0; n < deposits; n += 1) await w.deposit({ checkAt: now - 10_000 + n });
  const ctx = {
    ...base,
    due: {
      findDue: async (at: number, limit: number, after?: string) => {
        await sleep(pageMs);
        return base.due.findDue(at, limit, after);
      },
      defer: async (deposit: DueDeposit, checkAt: number) => {
        await sleep(deferMs);
        return base.due.defer(deposit, checkAt);
      },
    },
    queues: {
      send: async (...args: Parameters<typeof base.queues.send>) => {
        await sleep(sendMs);
        return base.queues.send(...args);
      },
    },
  };
  const started = performance.now();
  const result = await sweep(ctx, 100, width);
  const elapsedMs = performance.now() - started;
  const perSecond = (result.redriven / elapsedMs) * 1000;
  return {
    'at once': width,
    redriven: result.redriven,
    'run (s)': (elapsedMs / 1000).toFixed(2),
    'per second': Math.round(perSecond),
    '5,000 in (s)': (5_000 / perSecond).toFixed(1),
    [`in ${workingMs / 1000} s`]: Math.round((perSecond * workingMs) / 1000),
  };
}

console.log(
  `sweeper: ${deposits} due deposits; modelled latencies: defer ${deferMs} ms, send ${sendMs} ms, page ${pageMs} ms; ` +
    `a run has ${sweeper.timeoutSeconds} s, and takes deposits for ${workingMs / 1000} s`,
);
const rows = [];
for (const width of widths) rows.push(await run(width));
console.table(rows);
