/**
 * The figures of issue 10, measured in the bench's run on its local stack, against fixed references:
 *
 *   per bank     a first and a repeat deposit on one connection, every provider call and AWS request
 *                counted (test/bench/counting.ts); then first deposits on fresh users, timed beside
 *                the direct sequence of the same provider calls (test/bench/floor.ts)
 *   stack        one queue hop and one conditional table write, and the store's write ceiling
 *   scale        many users with one deposit each, all at once: deposits/s beside what the store's
 *                ceiling allows for the writes a deposit makes, and the CPU each process used
 *                meanwhile (`measureThroughput`; alone: `BENCH_ONLY=throughput npx tsx
 *                test/bench/performance.ts`, see `throughputOnly` at the end)
 *   cost         per million deposits in AWS (test/bench/cost.ts, prices in test/bench/prices.ts)
 *   bundles      each function's bundle and cold import (test/bench/bundles.ts)
 *
 * `runPerformance` returns the results (the bench writes them to test/bench/last-run.json) and the
 * lines it prints.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import type { LocalStack } from '#infra/local/stack';
import { tables } from '#infra/topology';
import { type BundleFigure, measureBundles } from './bundles.ts';
import { callerReadTotal, costTable, type Flow, queueDesignCost, stepFunctionsCost, total } from './cost.ts';
import { openTally, type PerDeposit, perDeposit, providerCallsOf, type Tally } from './counting.ts';
import { directSequence, queueHops, tableWrites } from './floor.ts';
import { type ApiTally, createUser, createUsers, percentile, runDeposit } from './flow.ts';
import { priceRegion, pricesAsOf } from './prices.ts';

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

/** After the caller reads `done`, the last step still finishes (releases, marks, its delete). */
const settleMs = 400;

/**
 * The per-bank users' banks carry operations out at once: no second of the bank's own hides the
 * orchestrator's time in the comparison, and the costs do not bill the functions for the bank's
 * waits (the delayed bank's figures are the bench's first table).
 */
const atOnce = { asyncDelaySeconds: 0 };

/** How often each of the many users reads its deposit. */
const scalePollMs = 1_000;

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

function sum(values: number[]) {
  return values.reduce((total, value) => total + value, 0);
}

/** DynamoDB figures of a tally by table: requests, write requests, units. */
function dynamo(counts: PerDeposit, table?: string) {
  const entries = Object.entries(counts.aws).filter(
    ([key]) => key.startsWith('DynamoDB ') && (table === undefined || key.endsWith(` ${table}`)),
  );
  const isWrite = (key: string) =>
    /PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems/.test(key);
  return {
    reads: sum(entries.filter(([key]) => !isWrite(key)).map(([, count]) => count.requests)),
    writes: sum(entries.filter(([key]) => isWrite(key)).map(([, count]) => count.requests)),
    readUnits: sum(entries.map(([, count]) => count.readUnits)),
    writeUnits: sum(entries.map(([, count]) => count.writeUnits)),
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

const ms = (value: number) => `${value.toFixed(0).padStart(5)} ms`;

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

/** CPU time (user + system, in clock ticks) of each process under this one, and of this one's main thread. */
interface CpuSnapshot {
  at: number;
  /** By pid: its label and ticks. */
  processes: Map<number, { label: string; ticks: number }>;
  /** This process's main thread (its JavaScript; the others are libuv's pool, V8's GC and compilers). */
  mainThread: number;
  /** The whole machine's busy ticks (all cores), to tell the other work on it. */
  machineBusy: number;
}

const clockTicks = 100; // USER_HZ: 100 on Linux

/** utime + stime of a /proc stat line (fields 14 and 15; the name in parentheses may hold spaces). */
function statTicks(stat: string) {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
}

function readText(path: string) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // gone meanwhile, or not Linux
  }
}

/** What a process under the stack is, from its command line. */
function processLabel(pid: number) {
  const command = (readText(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ');
  if (/java/.test(command) && /DynamoDBLocal/i.test(command)) return 'DynamoDB Local (java)';
  if (command.includes('step-worker-process')) return 'step workers (child node)';
  return (readText(`/proc/${pid}/comm`) ?? `pid ${pid}`).trim();
}

function cpuSnapshot(): CpuSnapshot {
  const parents = new Map<number, { ppid: number; ticks: number }>();
  let pids: string[] = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    // not Linux: no per-process figures
  }
  for (const name of pids) {
    const stat = readText(`/proc/${name}/stat`);
    if (stat) parents.set(Number(name), statTicks(stat));
  }
  const processes = new Map<number, { label: string; ticks: number }>();
  const own = parents.get(process.pid);
  if (own) processes.set(process.pid, { label: 'stack', ticks: own.ticks });
  // Every descendant of this process (DynamoDB Local's JVM, step workers' children, their children).
  let added = true;
  while (added) {
    added = false;
    for (const [pid, entry] of parents) {
      if (!processes.has(pid) && processes.has(entry.ppid)) {
        processes.set(pid, { label: processLabel(pid), ticks: entry.ticks });
        added = true;
      }
    }
  }
  const main = readText(`/proc/${process.pid}/task/${process.pid}/stat`);
  const machine =
    (readText('/proc/stat') ?? '').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
  // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
  const machineBusy = machine.reduce(
    (total, value, index) => (index === 3 || index === 4 ? total : total + value),
    0,
  );
  return { at: performance.now(), processes, mainThread: main ? statTicks(main).ticks : 0, machineBusy };
}

/**
 * Cores each process used between two snapshots (1 = one core busy the whole time): the stack's own
 * process (its main thread apart), each process under it by label (a process started meanwhile counts
 * from its start; one that ended meanwhile is lost), and the rest of the machine.
 */
function cpuByProcess(before: CpuSnapshot, after: CpuSnapshot) {
  const seconds = (after.at - before.at) / 1000;
  const cores = (ticks: number) => Number((ticks / clockTicks / seconds).toFixed(2));
  const byLabel: Record<string, number> = {};
  let ours = 0;
  for (const [pid, { label, ticks }] of after.processes) {
    const used = ticks - (before.processes.get(pid)?.ticks ?? 0);
    ours += used;
    byLabel[label] = (byLabel[label] ?? 0) + used;
  }
  const machine = after.machineBusy - before.machineBusy;
  return {
    /** The process running the gateways, every in-process handler, the sandbox, fauxqs and the bench's callers. */
    stack: cores(byLabel.stack ?? 0),
    /** Its main thread: the one JavaScript runs on (one core at most). */
    stackMainThread: cores(after.mainThread - before.mainThread),
    ...Object.fromEntries(
      Object.entries(byLabel)
        .filter(([label]) => label !== 'stack')
        .map(([label, ticks]): [string, number] => [label, cores(ticks)])
        .filter(([, used]) => used !== 0),
    ),
    /** Everything else on the machine (other work beside the bench). */
    otherProcesses: cores(Math.max(0, machine - ours)),
    machineCores: cpus().length,
  };
}

/**
 * Throughput at scale: `users` users with one deposit each, all at once (each reading its deposit once
 * a second), beside what the store's write ceiling allows for the writes a deposit makes; the CPU each
 * process used meanwhile (`cpuByProcess`), to tell what holds it back.
 */
export async function measureThroughput(
  stack: LocalStack,
  options: { users: number; writeCeilingPerSecond: number; print: (...lines: string[]) => void },
) {
  const { print } = options;
  const scaleUsers = await createUsers(stack, 'SANDBOX_BENEFICIARY', options.users, 20);
  const scaleTally = openTally();
  const cpuBefore = process.cpuUsage();
  const cpuSnapshotBefore = cpuSnapshot();
  const started = performance.now();
  // Each caller reads its deposit once a second: at 4 reads a second, 200 callers' reads were most of the load.
  const scaleApi: ApiTally = {};
  // A caller whose create or read got no answer (the API's client gave up after its retries) counts
  // as not done, rather than ending the run: on a busy machine one of 200 may.
  const runs = await Promise.all(
    scaleUsers.map((user, index) =>
      runDeposit(stack, user, 10 + (index % 50), {
        pollMs: scalePollMs,
        timeoutMs: 180_000,
        api: scaleApi,
      }).catch((error: unknown) => ({
        status: 'no answer',
        doneMs: performance.now() - started,
        failure: String(error),
      })),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const processCores = cpuByProcess(cpuSnapshotBefore, cpuSnapshot());
  await sleep(settleMs);
  const scaleCounts = perDeposit(scaleTally.close(), options.users);
  const orchestratorWrites = dynamo(scaleCounts, tables.deposits.localName).writes;
  const allWrites = dynamo(scaleCounts).writes;
  const perSecond = runs.filter((run) => run.status === 'done').length / seconds;
  // Both the deposits table and the sandbox's (the provider's side, here on the same store) write to DynamoDB Local.
  const ceilingDeposits = options.writeCeilingPerSecond / allWrites;
  const scale = {
    users: options.users,
    done: runs.filter((run) => run.status === 'done').length,
    /** Callers that got no answer from the API (their deposits not counted as done). */
    unanswered: runs.filter((run) => run.status === 'no answer').length,
    seconds,
    depositsPerSecond: perSecond,
    timeToDone: {
      p50: percentile(
        runs.map((run) => run.doneMs),
        50,
      ),
      p95: percentile(
        runs.map((run) => run.doneMs),
        95,
      ),
    },
    tableWritesPerDeposit: { deposits: orchestratorWrites, allTables: allWrites },
    ceilingDepositsPerSecond: ceilingDeposits,
    fractionOfCeiling: perSecond / ceilingDeposits,
    callerReadsPerDeposit: (scaleApi['/v1/deposits/get']?.length ?? 0) / options.users,
    /** CPU time of the process running every handler (and the sandbox), per second of the run: 1 = one core. */
    handlerProcessCores: (cpu.user + cpu.system) / 1e6 / seconds,
    /** Cores used during the run by each process (/proc): the stack's, its main thread, DynamoDB Local's, the rest of the machine's. */
    cpuByProcess: processCores,
  };
  const { machineCores, ...shown } = processCores;
  print(
    '',
    `${options.users} users, one deposit each, all at once (SANDBOX_BENEFICIARY)`,
    `  ${perSecond.toFixed(1)} deposits/s done (${scale.done} done in ${seconds.toFixed(1)} s, ${scale.unanswered} callers got no answer; time to done p50 ${ms(scale.timeToDone.p50)} p95 ${ms(scale.timeToDone.p95)})`,
    `  each caller read its deposit every ${scalePollMs} ms: ${scale.callerReadsPerDeposit.toFixed(1)} reads per deposit`,
    `  table writes per deposit: ${orchestratorWrites.toFixed(1)} on the deposits table, ${allWrites.toFixed(1)} with the sandbox's (same DynamoDB Local)`,
    `  the Node process running every handler and the sandbox used ${scale.handlerProcessCores.toFixed(2)} cores (one core at most for its JavaScript)`,
    `  cores used by process (of ${machineCores}): ${Object.entries(shown)
      .map(([label, cores]) => `${label} ${cores.toFixed(2)}`)
      .join(', ')}`,
    `  the store's ceiling allows ${ceilingDeposits.toFixed(1)} deposits/s (${options.writeCeilingPerSecond.toFixed(0)} writes/s / ${allWrites.toFixed(1)}): the orchestrator reaches ${(100 * scale.fractionOfCeiling).toFixed(0)}% of it`,
  );
  return scale;
}

/**
 * `BENCH_ONLY=throughput npx tsx test/bench/performance.ts`: the throughput part alone, on a stack of
 * its own started as `npm run bench` starts it (the store's ceiling measured first, as there); it
 * prints the figures as JSON and writes no file. BENCH_SCALE_USERS (200) and BENCH_CEILING_SECONDS
 * (5) as `npm run bench`; BENCH_STEP_WORKERS=child-process runs the step queues' pollers in child
 * processes (two), as the chaos run does.
 */
async function throughputOnly() {
  const { startLocalStack } = await import('#infra/local/stack');
  const { installCounters } = await import('./counting.ts');
  installCounters();
  const stack = await startLocalStack({
    sandboxPort: 0,
    depositsPort: 0,
    operatorPort: 0,
    ...(process.env.BENCH_STEP_WORKERS === 'child-process' ? { stepWorkers: 'child-process' as const } : {}),
    env: {
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      SANDBOX_APP_SECRET: 'sandbox-local-app-secret',
      LONG_WAIT_SECONDS: '2',
    },
  });
  try {
    const print = (...lines: string[]) => process.stdout.write(`${lines.join('\n')}\n`);
    // Warm the handlers up (the first deposit's cold imports), as the full bench has by then.
    const [warm] = await createUsers(stack, 'SANDBOX_BENEFICIARY', 1, 1);
    if (warm) await runDeposit(stack, warm, 10, { pollMs: 50 });
    const ceilingSeconds = Number(process.env.BENCH_CEILING_SECONDS ?? 5);
    // DynamoDB Local's JVM warmed up first (its JIT), as it is by then in the full bench.
    await tableWrites(stack, { sequential: 0, writers: 32, seconds: ceilingSeconds });
    const writes = await tableWrites(stack, { sequential: 100, writers: 32, seconds: ceilingSeconds });
    print(
      `conditional writes DynamoDB Local sustains (32 writers, ${ceilingSeconds} s): ${writes.ceilingPerSecond.toFixed(0)}/s`,
    );
    const scale = await measureThroughput(stack, {
      users: Number(process.env.BENCH_SCALE_USERS ?? 200),
      writeCeilingPerSecond: writes.ceilingPerSecond,
      print,
    });
    print(
      JSON.stringify(
        { writeCeilingPerSecond: writes.ceilingPerSecond, loadAverage: loadavg(), scale },
        null,
        2,
      ),
    );
  } finally {
    await stack.stop();
  }
}

if (
  process.env.BENCH_ONLY === 'throughput' &&
  process.argv[1] &&
  import.meta.url === pathToFileURL(process.argv[1]).href
) {
  await throughputOnly();
}
