/**
 * The step workers in a child process, for the local stack only (`startLocalStack({ stepWorkers:
 * 'child-process' })`, the chaos run's setting): the step queues' pollers run in processes a test
 * can kill, so a crash is a real death (SIGKILL: no catch, no finally, the batch in hand neither
 * finished nor deleted), not a thrown error. Here, the parent's side:
 *   - it starts the processes (`step-worker-process.ts`) and hands each the queues, the crash rules
 *     armed (`crash-points.ts`: armed here, relayed there; each firing claimed by one process, so a
 *     rule goes off as often as it was armed) and the local clock's shift, kept in step after;
 *   - when a process reaches an armed crash point it asks to die: it is killed, SIGKILL, at once;
 *   - `kill()` kills them at whatever they are doing (a restart, as Lambda recycles environments);
 *   - a process that died is replaced after `respawnAfterMs`, with the rules still armed;
 *   - what the process journaled (rules used up, deaths, transfer attempts open when it died, answers
 *     lost) becomes the crash points' report in this process;
 *   - the DynamoDB faults' rules (`dynamodb-faults.ts`) go the same way: armed here, relayed there,
 *     each firing claimed by one process and journaled back into this process's report.
 * The processes run one bundle of the process's module (esbuild, built once at the start), not the
 * sources through tsx: each replacement starts cold, and a bundle loads in a fraction of the CPU.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { requireBanner } from '#infra/constructs/bundle-options';
import type { queues } from '#shared/topology';
import { localClock } from './clock.ts';
import {
  crashPoints,
  type Death,
  firedElsewhere,
  recordDeath,
  recordLostAnswer,
  relayCrashPoints,
} from './crash-points.ts';
import {
  dynamoDbFaultFiredElsewhere,
  dynamoDbFaults,
  recordFaultInAttempt,
  relayDynamoDbFaults,
} from './dynamodb-faults.ts';
import type { JournalLine, ToWorkers } from './step-worker-process.ts';

export interface StepWorkersOptions {
  sqsEndpoint: string;
  queues: { key: keyof typeof queues; name: string; url: string; arn: string }[];
  /**
   * Pollers per queue in each process at the start and while the queue is empty; they grow with its
   * messages, the processes sharing each queue's `maxConcurrency` (`pollers.ts`).
   */
  concurrency: number;
  /** How many processes (each a set of execution environments); one dying leaves the others working. */
  processes?: number;
  /** How long a killed process stays dead before its replacement starts (a cold start follows). */
  respawnAfterMs?: number;
}

export interface StepWorkers {
  /** Kills every process (SIGKILL) at whatever it is doing; new ones start after the pause. */
  kill(pauseMs?: number): Promise<void>;
  /** Processes killed so far: at a crash point (`planned`), or at whatever they did. */
  kills(): { planned: number; unplanned: number };
  stop(): Promise<void>;
}

const worker = resolve(import.meta.dirname, 'step-worker-process.ts');

/** The step workers' process as one ESM file in `folder`, the packages inside it. */
async function bundleWorker(folder: string): Promise<string> {
  const outfile = join(folder, 'step-worker-process.mjs');
  await build({
    entryPoints: [worker],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    // The CommonJS packages inside (the AWS SDK's among them) call `require`: an ES module has none.
    banner: { js: requireBanner },
  });
  return outfile;
}

/** One process's place: its current process, and what its journal told so far. */
interface Slot {
  index: number;
  child?: ChildProcess | undefined;
  file: string;
  offset: number;
  /** The transfer attempts it opened and did not close. */
  open: Set<string>;
  /** The death it announced, if it reached an armed crash point. */
  death?: Death | undefined;
  /** How long its next replacement waits (a `kill` may ask for a longer pause). */
  respawnAfterMs: number;
}

export async function startStepWorkers(options: StepWorkersOptions): Promise<StepWorkers> {
  const folder = mkdtempSync(join(tmpdir(), 'step-workers-'));
  const respawnAfterMs = options.respawnAfterMs ?? 200;
  const slots: Slot[] = Array.from({ length: options.processes ?? 2 }, (_, index) => ({
    index,
    file: '',
    offset: 0,
    open: new Set<string>(),
    respawnAfterMs,
  }));
  let generation = 0;
  let stopping = false;
  const kills = { planned: 0, unplanned: 0 };
  // Every process holds every rule; each firing is claimed by one of them, in this folder.
  const firings = join(folder, 'firings');
  mkdirSync(firings);
  const bundle = await bundleWorker(folder);

  /** Reads what the slot's process journaled since the last read. */
  function absorb(slot: Slot) {
    if (!slot.file) return;
    let text: string;
    try {
      text = readFileSync(slot.file, 'utf8');
    } catch {
      return; // nothing journaled yet
    }
    const end = text.lastIndexOf('\n') + 1;
    for (const raw of text.slice(slot.offset, end).split('\n')) {
      if (!raw) continue;
      const line = JSON.parse(raw) as JournalLine;
      if (line.kind === 'fired') firedElsewhere(line.ruleId, line.point);
      else if (line.kind === 'dynamodb-fired') dynamoDbFaultFiredElsewhere(line.ruleId, line.faultKind);
      else if (line.kind === 'dynamodb-in-attempt') recordFaultInAttempt(line.fault);
      else if (line.kind === 'attempt') {
        if (line.open) slot.open.add(line.depositId);
        else slot.open.delete(line.depositId);
      } else if (line.kind === 'lost-answer') {
        const { kind: _kind, ...lost } = line;
        recordLostAnswer(lost);
      } else slot.death = line.death;
    }
    slot.offset = end;
  }

  relayCrashPoints({
    armed: (rule) => {
      for (const slot of slots) send(slot, { type: 'arm', rule });
    },
    cleared: () => {
      for (const slot of slots) send(slot, { type: 'clear' });
    },
    refresh: () => {
      for (const slot of slots) absorb(slot);
    },
  });
  relayDynamoDbFaults({
    armed: (rule) => {
      for (const slot of slots) send(slot, { type: 'arm-dynamodb', rule });
    },
    cleared: () => {
      for (const slot of slots) send(slot, { type: 'clear-dynamodb' });
    },
    refresh: () => {
      for (const slot of slots) absorb(slot);
    },
  });
  const stopFollowingClock = localClock.onAdvance(() => {
    for (const slot of slots) send(slot, { type: 'clock', shiftMs: localClock.shift() });
  });

  function send(slot: Slot, message: ToWorkers) {
    // A worker killed a moment ago may still look connected: the message then fails (EPIPE), which
    // is moot, as its replacement starts with the rules and the clock as they are then.
    if (slot.child?.connected) slot.child.send(message, () => undefined);
  }

  /** The slot's process died: what it journaled becomes the report; a death it did not announce is a kill. */
  function died(slot: Slot) {
    absorb(slot);
    const attemptsOpen = [...slot.open];
    if (slot.death) {
      kills.planned += 1;
      recordDeath({ ...slot.death, attemptsOpen });
    } else {
      kills.unplanned += 1;
      recordDeath({
        point: 'killed',
        step: 'any',
        ownerKey: '',
        at: Date.now(),
        how: 'killed',
        attemptsOpen,
      });
    }
  }

  async function spawn(slot: Slot) {
    generation += 1;
    Object.assign(slot, {
      file: join(folder, `journal-${generation}.jsonl`),
      offset: 0,
      open: new Set(),
      death: undefined,
    });
    const started = fork(bundle, [], {
      execArgv: [],
      env: { ...process.env, STEP_WORKERS_JOURNAL: slot.file, STEP_WORKERS_FIRINGS: firings },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    slot.child = started;
    // The IPC channel's failures (a send to a worker being killed): its exit is what counts.
    started.on('error', () => undefined);
    // The handlers' logs, as the stack's own (a chaos run scans them for secrets).
    started.stdout?.on('data', (chunk: Buffer) => process.stdout.write(chunk));
    started.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    const ready = new Promise<void>((done, failed) => {
      started.on('message', (message: { type: string }) => {
        if (message.type === 'ready') done();
        // At an armed crash point: killed at once, SIGKILL.
        if (message.type === 'dying') started.kill('SIGKILL');
      });
      started.once('exit', (code, signal) => failed(new Error(`step workers exited (${signal ?? code})`)));
    });
    started.once('exit', () => {
      if (slot.child !== started) return;
      slot.child = undefined;
      died(slot);
      if (!stopping) setTimeout(() => void respawn(slot), slot.respawnAfterMs);
      slot.respawnAfterMs = respawnAfterMs;
    });
    started.send({
      type: 'start',
      sqsEndpoint: options.sqsEndpoint,
      queues: options.queues,
      concurrency: options.concurrency,
      share: { index: slot.index, of: slots.length },
      environment: `workers-${generation}`,
      rules: crashPoints.rules(),
      dynamoDbFaults: dynamoDbFaults.rules(),
      clockShiftMs: localClock.shift(),
    } satisfies ToWorkers);
    await ready;
  }

  async function respawn(slot: Slot) {
    if (stopping || slot.child) return;
    await spawn(slot).catch((error: unknown) => {
      process.stderr.write(`local step workers: ${String(error)}\n`);
    });
  }

  async function killAll(pauseMs: number) {
    await Promise.all(
      slots.map(async (slot) => {
        const current = slot.child;
        if (!current) return;
        slot.respawnAfterMs = Math.max(pauseMs, respawnAfterMs);
        const exited = new Promise((done) => current.once('exit', done));
        current.kill('SIGKILL');
        await exited;
      }),
    );
  }

  await Promise.all(slots.map((slot) => spawn(slot)));
  return {
    kill: (pauseMs = 0) => killAll(pauseMs),
    kills: () => ({ ...kills }),
    async stop() {
      stopping = true;
      stopFollowingClock();
      await killAll(0);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
