/**
 * Throughput at scale, a part of `npm run bench`: many users with one deposit each, all at once,
 * beside what the store's write ceiling allows for the writes a deposit makes, and the cores each
 * process used meanwhile (from /proc), to tell what holds it back. Alone, on a stack of its own:
 * `npx tsx test/bench/throughput.ts` (`throughputOnly`, at the end).
 */
import '#infra/local/xray-manual-mode';

import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import type { LocalStack } from '#infra/local/stack';
import { tables } from '#shared/topology';
import { openTally, perDeposit } from './counting.ts';
import { dynamo, ms, settleMs } from './figures.ts';
import { tableWrites } from './floor.ts';
import { type ApiTally, createUsers, percentile, runDeposit } from './flow.ts';

/** How often each of the many users reads its deposit. */
const scalePollMs = 1_000;

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
 * `npx tsx test/bench/throughput.ts`: the throughput part alone, on a stack of
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

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await throughputOnly();
}
