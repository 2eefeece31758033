/**
 * The service's performance figures, measured in the bench's run on its local stack, against fixed
 * references:
 *
 *   per bank     a first and a repeat deposit on one connection, every provider call and AWS request
 *                counted (test/bench/counting.ts); then first deposits on fresh users, timed beside
 *                the direct sequence of the same provider calls (test/bench/floor.ts)
 *   stack        one queue hop and one conditional table write, and the store's write ceiling
 *   scale        many users with one deposit each, all at once (test/bench/throughput.ts)
 *   cost         per million deposits in AWS (test/bench/cost.ts, prices in test/bench/prices.ts)
 *   bundles      each function's bundle and cold import (test/bench/bundles.ts)
 *
 * `runPerformance` returns the results (the bench writes them to test/bench/last-run.json) and the
 * lines it prints.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LocalStack } from '#infra/local/stack';
import { tables } from '#shared/topology';
import { type BundleFigure, measureBundles } from './bundles.ts';
import { callerReadTotal, costTable, type Flow, queueDesignCost, stepFunctionsCost, total } from './cost.ts';
import { openTally, type PerDeposit, perDeposit, providerCallsOf, type Tally } from './counting.ts';
import { dynamo, ms, settleMs, sum } from './figures.ts';
import { directSequence, queueHops, tableWrites } from './floor.ts';
import { type ApiTally, createUser, createUsers, percentile, runDeposit } from './flow.ts';
import { priceRegion, pricesAsOf } from './prices.ts';
import { measureThroughput } from './throughput.ts';

export interface PerformanceOptions {
  /** Timed first deposits (and direct sequences) per bank. */
  runsPerBank: number;
  /** Users with one deposit each, all at once. */
  scaleUsers: number;
  ceilingSeconds: number;
  /** Fresh-process imports per bundle (0: no synth, no bundles). */
  bundleImports: number;
}

/** Banks whose deposits finish without a question or a long cool-down, each a path of the flow. */
export const benchBanks = [
  'SANDBOX_BENEFICIARY',
  'SANDBOX_FIRST_DETAILS',
  'SANDBOX_NO_BENEFICIARY',
  'SANDBOX_KWD',
];

/**
 * Counted only, not timed: a cool-down of 3.6 s with new beneficiaries hidden until it ends (the
 * wait-cooldown step, a one-shot schedule when the bench's LONG_WAIT_SECONDS is below it, the look-up
 * after it); no direct sequence can skip the wait.
 */
export const countedOnlyBanks = ['SANDBOX_COOLDOWN_FAST'];

const amountOf = (bankId: string) => (bankId === 'SANDBOX_KWD' ? 1.5 : 10);

/**
 * The per-bank users' banks carry operations out at once: no second of the bank's own hides the
 * orchestrator's time in the comparison, and the costs do not bill the functions for the bank's
 * waits (the delayed bank's figures are the bench's first table).
 */
const atOnce = { asyncDelaySeconds: 0 };

function apiFigures(api: ApiTally): Flow['api'] {
  return Object.fromEntries(
    Object.entries(api).map(([path, times]) => [
      path,
      { count: times.length, meanMs: times.reduce((sum, value) => sum + value, 0) / times.length },
    ]),
  );
}

export interface Counted {
  status: string;
  providerPaths: string[];
  counts: PerDeposit;
  api: Flow['api'];
}

/** One deposit on `user`'s connection, counted from its create until its last step has finished. */
export async function countedDeposit(
  stack: LocalStack,
  user: Parameters<typeof runDeposit>[1],
  amount: number,
) {
  const before = providerCallsOf(user.accessToken).length;
  const tally = openTally();
  const api: ApiTally = {};
  const run = await runDeposit(stack, user, amount, { pollMs: 250, api });
  await sleep(settleMs);
  const closed: Tally = tally.close();
  return {
    status: run.status,
    providerPaths: providerCallsOf(user.accessToken).slice(before),
    counts: perDeposit(closed, 1),
    api: apiFigures(api),
    tally: closed,
  };
}

function summary(counted: Counted) {
  const deposits = dynamo(counted.counts, tables.deposits.localName);
  const sqsSends = sum(
    Object.entries(counted.counts.aws)
      .filter(([key]) => key.startsWith('SQS Send'))
      .map(([, count]) => count.requests),
  );
  const lambda =
    sum(Object.values(counted.api).map((route) => route.count)) +
    sum(Object.values(counted.counts.invocations).map((step) => step.count));
  return (
    `provider ${counted.providerPaths.length}  deposits table: ${deposits.reads} reads (${deposits.readUnits.toFixed(1)} RRU), ` +
    `${deposits.writes} writes (${deposits.writeUnits.toFixed(1)} WRU)  SQS ${sqsSends} sends ${counted.counts.polling.receives} receives ${counted.counts.polling.deletes} deletes  ` +
    `key ${counted.counts.keys.seal} seal ${counted.counts.keys.open} open (data keys ${counted.counts.keys.generate} made, ${counted.counts.keys.unwrap} unwrapped)  Lambda ${lambda}  API ${sum(Object.values(counted.api).map((route) => route.count))}`
  );
}

function awsTable(counted: Counted): string[] {
  const rows: string[] = [];
  for (const [key, count] of Object.entries(counted.counts.aws).sort()) {
    const units =
      count.readUnits || count.writeUnits
        ? `  ${count.readUnits ? `${count.readUnits.toFixed(1)} RRU` : ''}${count.writeUnits ? `${count.writeUnits.toFixed(1)} WRU` : ''}`
        : '';
    rows.push(
      `    ${key.padEnd(44)} ${String(count.requests).padStart(3)}${units}${count.refused ? `  (${count.refused} refused)` : ''}`,
    );
  }
  rows.push(
    `    ${'SQS ReceiveMessage (event source mapping)'.padEnd(44)} ${String(counted.counts.polling.receives).padStart(3)}`,
    `    ${'SQS DeleteMessageBatch (event source mapping)'.padEnd(44)} ${String(counted.counts.polling.deletes).padStart(3)}`,
    `    ${'vault: seal / open'.padEnd(44)} ${counted.counts.keys.seal} / ${counted.counts.keys.open}`,
    `    ${'data keys (KMS in AWS): generated / unwrapped'.padEnd(44)} ${counted.counts.keys.generate} / ${counted.counts.keys.unwrap}`,
  );
  for (const [queue, step] of Object.entries(counted.counts.invocations))
    rows.push(
      `    ${`Lambda step ${queue}`.padEnd(44)} ${String(step.count).padStart(3)}  ${step.meanMs.toFixed(0)} ms each`,
    );
  for (const [path, route] of Object.entries(counted.api))
    rows.push(
      `    ${`Lambda + API ${path}`.padEnd(44)} ${String(route.count).padStart(3)}  ${route.meanMs.toFixed(0)} ms each`,
    );
  rows.push(`    provider calls: ${counted.providerPaths.join(', ') || 'none'}`);
  const stepMs = sum(Object.values(counted.counts.invocations).map((step) => step.count * step.meanMs));
  rows.push(
    `    the steps' ${stepMs.toFixed(0)} ms: waiting on the provider ${counted.counts.waited.providerMs.toFixed(0)} ms, on the orchestrator's AWS requests (the API's included) ${counted.counts.waited.awsMs.toFixed(0)} ms, the rest in the handlers`,
  );
  return rows;
}

export async function runPerformance(stack: LocalStack, options: PerformanceOptions) {
  const lines: string[] = [];
  const print = (...more: string[]) => {
    lines.push(...more);
    process.stdout.write(`${more.join('\n')}\n`);
  };

  // Per bank: counted first and repeat deposits, then timed first deposits beside the direct sequence.
  const banks: Record<string, unknown> = {};
  const counted: Record<string, { first: Counted; repeat: Counted }> = {};
  print(
    '',
    `Per bank, users whose bank carries operations out at once (asyncDelaySeconds 0): a first and a repeat deposit counted; ${options.runsPerBank} first deposits timed beside the direct provider sequence`,
  );
  for (const bankId of [...benchBanks, ...countedOnlyBanks]) {
    const user = await createUser(stack, bankId, atOnce);
    const { tally: _first, ...first } = await countedDeposit(stack, user, amountOf(bankId));
    const { tally: _repeat, ...repeat } = await countedDeposit(stack, user, amountOf(bankId) + 1);
    counted[bankId] = { first, repeat };
    if (countedOnlyBanks.includes(bankId)) {
      banks[bankId] = {
        firstStatus: first.status,
        repeatStatus: repeat.status,
        providerCalls: { first: first.providerPaths.length, repeat: repeat.providerPaths.length },
        providerPaths: { first: first.providerPaths, repeat: repeat.providerPaths },
      };
      print(
        `  ${bankId.padEnd(24)} counted only (a 3.6 s cool-down)   provider calls first ${first.providerPaths.length}, repeat ${repeat.providerPaths.length}`,
      );
      continue;
    }
    const fresh = await createUsers(stack, bankId, options.runsPerBank * 2, 10, atOnce);
    const done: number[] = [];
    const direct: number[] = [];
    for (let run = 0; run < options.runsPerBank; run += 1) {
      const depositUser = fresh[run * 2];
      const directUser = fresh[run * 2 + 1];
      if (!depositUser || !directUser) throw new Error('missing bench user');
      const result = await runDeposit(stack, depositUser, amountOf(bankId), { pollMs: 10 });
      if (result.status === 'done') done.push(result.doneMs);
      direct.push(
        await directSequence(
          stack,
          directUser,
          first.providerPaths,
          Math.round(amountOf(bankId) * (bankId === 'SANDBOX_KWD' ? 1000 : 100)),
        ),
      );
    }
    const figures = {
      firstStatus: first.status,
      repeatStatus: repeat.status,
      providerCalls: { first: first.providerPaths.length, repeat: repeat.providerPaths.length },
      providerPaths: { first: first.providerPaths, repeat: repeat.providerPaths },
      timeToDone: { p50: percentile(done, 50), p95: percentile(done, 95), runs: done.length },
      directSequence: { p50: percentile(direct, 50), p95: percentile(direct, 95), runs: direct.length },
      ratio: {
        p50: percentile(done, 50) / percentile(direct, 50),
        p95: percentile(done, 95) / percentile(direct, 95),
      },
    };
    banks[bankId] = figures;
    print(
      `  ${bankId.padEnd(24)} done p50 ${ms(figures.timeToDone.p50)} p95 ${ms(figures.timeToDone.p95)}   direct p50 ${ms(figures.directSequence.p50)} p95 ${ms(figures.directSequence.p95)}   ratio p50 ${figures.ratio.p50.toFixed(2)}x p95 ${figures.ratio.p95.toFixed(2)}x   provider calls first ${figures.providerCalls.first}, repeat ${figures.providerCalls.repeat}`,
    );
  }
  print('', 'Requests per deposit (counted at the provider client and the AWS SDK clients)');
  for (const [bankId, { first, repeat }] of Object.entries(counted)) {
    print(`  ${bankId} first:  ${summary(first)}`, `  ${bankId} repeat: ${summary(repeat)}`);
  }
  const reference = counted.SANDBOX_BENEFICIARY;
  if (!reference) throw new Error('no SANDBOX_BENEFICIARY figures');
  print('', '  SANDBOX_BENEFICIARY, first deposit, by service and operation:', ...awsTable(reference.first));
  print('  SANDBOX_BENEFICIARY, repeat deposit:', ...awsTable(reference.repeat));
  const cooling = counted.SANDBOX_COOLDOWN_FAST;
  if (cooling) print('  SANDBOX_COOLDOWN_FAST, first deposit (a cool-down):', ...awsTable(cooling.first));

  // The stack's own costs: a queue hop, a table write, the store's ceiling (with nothing else running).
  const hops = await queueHops(stack, 30);
  const writes = await tableWrites(stack, { sequential: 100, writers: 32, seconds: options.ceilingSeconds });
  const stackFigures = {
    queueHopMs: { p50: percentile(hops, 50), p95: percentile(hops, 95) },
    tableWriteMs: { p50: percentile(writes.latencies, 50), p95: percentile(writes.latencies, 95) },
    writeCeilingPerSecond: writes.ceilingPerSecond,
  };
  print(
    '',
    'This stack',
    `  one queue hop (send until a waiting receive has it)  p50 ${ms(stackFigures.queueHopMs.p50)}  p95 ${ms(stackFigures.queueHopMs.p95)}`,
    `  one conditional table write (PutItem, ~1 KB)          p50 ${ms(stackFigures.tableWriteMs.p50)}  p95 ${ms(stackFigures.tableWriteMs.p95)}`,
    `  conditional writes DynamoDB Local sustains (32 writers, ${options.ceilingSeconds} s): ${writes.ceilingPerSecond.toFixed(0)}/s`,
  );

  // Throughput at scale: many users, one deposit each, all at once.
  const scale = await measureThroughput(stack, {
    users: options.scaleUsers,
    writeCeilingPerSecond: writes.ceilingPerSecond,
    print,
  });

  // Cost per million deposits.
  const firstFlow: Flow = reference.first;
  const repeatFlow: Flow = reference.repeat;
  const queueFirst = queueDesignCost(firstFlow);
  const queueRepeat = queueDesignCost(repeatFlow);
  const sfn = stepFunctionsCost(firstFlow);
  print(
    '',
    `Cost per million deposits in AWS, ${priceRegion}, on-demand prices as of ${pricesAsOf}`,
    ...costTable('  SANDBOX_BENEFICIARY first deposit (this design: SQS between steps):', queueFirst),
    ...costTable('  SANDBOX_BENEFICIARY repeat deposit:', queueRepeat),
    ...costTable(
      `  first deposit as a Step Functions Standard workflow (${sfn.transitions} state transitions):`,
      sfn.lines,
    ),
  );
  const costs = Object.fromEntries(
    Object.entries(counted).map(([bankId, { first, repeat }]) => [
      bankId,
      {
        first: total(queueDesignCost(first)),
        repeat: total(queueDesignCost(repeat)),
        stepFunctionsFirst: total(stepFunctionsCost(first).lines),
        /** Apart: one read of the caller, per million reads. */
        callerRead: callerReadTotal(queueDesignCost(first)),
      },
    ]),
  );
  print(
    "  total per bank (first / repeat / first as Step Functions; apart, a million of the caller's reads):",
    ...Object.entries(costs).map(
      ([bankId, cost]) =>
        `    ${bankId.padEnd(24)} ${cost.first.toFixed(2)} / ${cost.repeat.toFixed(2)} / ${cost.stepFunctionsFirst.toFixed(2)} USD; reads ${cost.callerRead.toFixed(2)} USD`,
    ),
  );

  // Bundles and cold starts.
  let bundles: { figures: BundleFigure[]; synthSeconds: number } | undefined;
  if (options.bundleImports > 0) {
    bundles = measureBundles({ imports: options.bundleImports });
    print(
      '',
      `Bundles (cdk synth, dev stage with the sandbox; esbuild took ${bundles.synthSeconds.toFixed(0)} s) and cold import in a fresh Node process (median of ${options.bundleImports})`,
      ...bundles.figures.map(
        (figure) =>
          `  ${figure.handler.padEnd(42)} ${(figure.bytes / 1024).toFixed(0).padStart(5)} KiB  import ${ms(figure.importMs)}`,
      ),
    );
  } else {
    print('', 'Bundles: skipped in quick mode (npm run bench without --quick measures them)');
  }

  return {
    banks,
    counted,
    stack: stackFigures,
    scale,
    cost: {
      region: priceRegion,
      pricesAsOf,
      referenceFirst: queueFirst,
      referenceRepeat: queueRepeat,
      stepFunctions: sfn,
      totals: costs,
    },
    bundles,
    lines,
  };
}
