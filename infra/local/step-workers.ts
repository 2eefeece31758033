/**
 * The step workers in a child process, for the local stack only (`startLocalStack({ stepWorkers:
 * 'child-process' })`, the chaos run's setting): the step queues' pollers run in a process a test can
 * kill, so a crash is a real death (SIGKILL: no catch, no finally, the batch in hand neither finished
 * nor deleted), not a thrown error. Here, the parent's side:
 *   - it starts the process (`step-worker-process.ts`) and hands it the queues, the crash rules armed
 *     (`crash-points.ts`: armed here, relayed there) and the local clock's shift, kept in step after;
 *   - when the process reaches an armed crash point it asks to die: it is killed, SIGKILL, at once;
 *   - `kill()` kills it at whatever it is doing (a restart, as a Lambda environment is recycled);
 *   - a process that died is replaced after `respawnAfterMs`, with the rules still armed;
 *   - what the process journaled (rules used up, deaths, transfer attempts open when it died, answers
 *     lost) becomes the crash points' report in this process.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { queues } from '#infra/topology';
import { localClock } from './clock.ts';
import {
  crashPoints,
  type Death,
  firedElsewhere,
  recordDeath,
  recordLostAnswer,
  relayCrashPoints,
} from './crash-points.ts';
import type { JournalLine, ToWorkers } from './step-worker-process.ts';

export interface StepWorkersOptions {
  sqsEndpoint: string;
  queues: { key: keyof typeof queues; name: string; url: string; arn: string }[];
  concurrency: number;
  /** How long a killed process stays dead before its replacement starts (a cold start follows). */
  respawnAfterMs?: number;
}

export interface StepWorkers {
  /** Kills the process (SIGKILL) at whatever it is doing; a new one starts after the pause. */
  kill(pauseMs?: number): Promise<void>;
  /** Processes killed so far, and why. */
  kills(): { planned: number; unplanned: number };
  stop(): Promise<void>;
}

const worker = resolve(import.meta.dirname, 'step-worker-process.ts');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export async function startStepWorkers(options: StepWorkersOptions): Promise<StepWorkers> {
  const folder = mkdtempSync(join(tmpdir(), 'step-workers-'));
  let child: ChildProcess | undefined;
  let generation = 0;
  let stopping = false;
  /** How long the next replacement waits (a `kill` may ask for a longer pause). */
  let respawnAfterMs = options.respawnAfterMs ?? 200;
  const kills = { planned: 0, unplanned: 0 };
  /** What the current process journaled so far: how far it was read, and its attempts still open. */
  let reading = { file: '', offset: 0, open: new Set<string>(), death: undefined as Death | undefined };

  /** Reads what the process journaled since the last read. */
  function absorb() {
    if (!reading.file) return;
    let text: string;
    try {
      text = readFileSync(reading.file, 'utf8');
    } catch {
      return; // nothing journaled yet
    }
    const end = text.lastIndexOf('\n') + 1;
    for (const raw of text.slice(reading.offset, end).split('\n')) {
      if (!raw) continue;
      const line = JSON.parse(raw) as JournalLine;
      if (line.kind === 'fired') firedElsewhere(line.ruleId, line.point);
      else if (line.kind === 'attempt') {
        if (line.open) reading.open.add(line.depositId);
        else reading.open.delete(line.depositId);
      } else if (line.kind === 'lost-answer') {
        const { kind: _kind, ...lost } = line;
        recordLostAnswer(lost);
      } else reading.death = line.death;
    }
    reading.offset = end;
  }

  relayCrashPoints({
    armed: (rule) => send({ type: 'arm', rule }),
    cleared: () => send({ type: 'clear' }),
    refresh: absorb,
  });
  const stopFollowingClock = localClock.onAdvance(() => send({ type: 'clock', shiftMs: localClock.shift() }));

  function send(message: ToWorkers) {
    if (child?.connected) child.send(message);
  }

  /** The process died: what it journaled becomes the report; a death it did not announce is a kill. */
  function died(at: number) {
    absorb();
    const attemptsOpen = [...reading.open];
    if (reading.death) {
      kills.planned += 1;
      recordDeath({ ...reading.death, attemptsOpen });
    } else {
      kills.unplanned += 1;
      recordDeath({ point: 'killed', step: 'any', ownerKey: '', at, how: 'killed', attemptsOpen });
    }
  }

  async function spawn() {
    generation += 1;
    const file = join(folder, `journal-${generation}.jsonl`);
    reading = { file, offset: 0, open: new Set(), death: undefined };
    const started = fork(worker, [], {
      execArgv: ['--import', tsx],
      env: { ...process.env, STEP_WORKERS_JOURNAL: file },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    child = started;
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
      if (child !== started) return;
      child = undefined;
      died(Date.now());
      if (!stopping) setTimeout(() => void respawn(), respawnAfterMs);
      respawnAfterMs = options.respawnAfterMs ?? 200;
    });
    started.send({
      type: 'start',
      sqsEndpoint: options.sqsEndpoint,
      queues: options.queues,
      concurrency: options.concurrency,
      environment: `workers-${generation}`,
      rules: crashPoints.rules(),
      clockShiftMs: localClock.shift(),
    } satisfies ToWorkers);
    await ready;
  }

  async function respawn() {
    if (stopping || child) return;
    await spawn().catch((error: unknown) => {
      process.stderr.write(`local step workers: ${String(error)}\n`);
    });
  }

  await spawn();
  return {
    async kill(pauseMs = 0) {
      const current = child;
      if (!current) return;
      respawnAfterMs = Math.max(pauseMs, respawnAfterMs);
      const exited = new Promise((done) => current.once('exit', done));
      current.kill('SIGKILL');
      await exited;
    },
    kills: () => ({ ...kills }),
    async stop() {
      stopping = true;
      stopFollowingClock();
      const current = child;
      if (current) {
        const exited = new Promise((done) => current.once('exit', done));
        current.kill('SIGKILL');
        await exited;
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
