/**
 * `npm test`: the type check, the linter and every vitest project, in phases, each phase one vitest
 * run (or one tool), so that a project's local stack lives only while its files run. (One `vitest
 * run` of every project sets up every project's stack at its start, and each idles, with its
 * pollers, sweeper and DynamoDB Local, until the whole run ends; the stack of bundles is built before
 * the first test.)
 *
 * Two lanes run side by side, each its waves one after the other (a wave's phases side by side):
 *   - the lint lane, at the lowest CPU priority (nice 19): the type check and Biome. They wait on
 *     nothing but the CPU, and take what the tests leave idle: the stacks' waves keep the two cores a
 *     little over half busy. (The unit and infra projects as well, beside the stacks: the stacks'
 *     waves took a fifth longer, the bench's counting passed its timeout, and the whole no shorter.)
 *   - the tests' lane:
 *       1. the unit tests, and the infra project (CDK, esbuild, whose bundles' code it keeps for the
 *          stack of bundles) with the bench's counting (its own stack) beside it: CPU, and no shared
 *          stack whose timeouts either could slow the other past;
 *       2. the end-to-end files against one stack, and the files that start processes, on that
 *          stack, in the same pool, last (they start as the e2e files' queue runs out);
 *       3. the deposit files again in the provider's v2 dialect, on a stack of that dialect;
 *       4. the stack of bundles, its code kept by wave 1 (it builds nothing; beside wave 3, its
 *          functions' cold starts slowed the v2 files past their timeouts);
 *       5. the projects with a stack of their own per file, two files at a time: chaos, browser, clock.
 *
 * One DynamoDB Local serves each wave of stacks: each stack its files start makes its tables there
 * under names of its own (`test/support/shared-dynamodb.ts`), where each started a JVM of its own (some
 * 3 s of a core each, seven in the last wave). A wave's own, not the run's: DynamoDB Local's stream
 * reads slow with every write it has taken, to any table (ten times the CPU after 20,000 writes), and
 * on one that had served the waves before it, the last wave's chaos run took twice its time and
 * failed (the README's "npm test"). Each is started a phase ahead, idle until its phase takes it, so
 * that no phase waits for a JVM to start (a second or two; more beside a busy phase).
 *
 * Every process of the run gets a temporary folder of the run's own (`TMPDIR`), removed when the run
 * ends: what a test runner's worker made there is left behind when the runner stops it (a process
 * stopped so has no `exit` event to clean up on), as each synthesis of the CDK app's assembly was.
 *
 * Every phase runs even when one before it failed; the run fails if any did. At the end, a table of
 * each phase's start, its time and the CPU time it took (its processes' user and system time, which
 * other load on the machine changes much less than the time). `npm test -- <phase>...` runs only the
 * phases named (`lint`, `unit`, `infra`, `e2e`, `e2e-v2`, `bundles`, `own-stacks`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { type DynamoDbLocal, startDynamoDbLocal } from '#infra/local/dynamodb-local';
import { cpuSeconds } from './support/cpu-time.mjs';

const projectRoot = resolve(import.meta.dirname, '..');
const bin = (name: string) => resolve(projectRoot, 'node_modules/.bin', name);
const vitest = (...projects: string[]) => [
  bin('vitest'),
  'run',
  ...projects.flatMap((p) => ['--project', p]),
];

interface Phase {
  name: string;
  /** Commands run side by side. */
  commands: string[][];
  /** Whether its commands run at the lowest CPU priority, their output printed whole when each ends. */
  niced?: boolean;
  /** Whether its files start stacks: the phase gets a DynamoDB Local of its own. */
  stacks?: boolean;
}

const phases: Phase[] = [
  {
    name: 'lint',
    niced: true,
    commands: [
      [bin('tsc'), '--noEmit'],
      [bin('biome'), 'check', '.'],
    ],
  },
  { name: 'unit', commands: [vitest('unit', 'unit-isolated')] },
  // Two runs side by side: the infra files, two at a time (CDK; esbuild for every function in one of
  // them, the longest), and the bench's counting (its own stack); in one run they took turns.
  { name: 'infra', commands: [vitest('bench'), vitest('infra')] },
  { name: 'e2e', stacks: true, commands: [vitest('e2e', 'e2e-processes')] },
  { name: 'e2e-v2', stacks: true, commands: [vitest('e2e-v2')] },
  { name: 'bundles', stacks: true, commands: [vitest('bundles')] },
  { name: 'own-stacks', stacks: true, commands: [vitest('chaos', 'browser', 'clock')] },
];

/** The lanes, side by side: each its waves one after the other, a wave's phases side by side. */
const lanes: string[][][] = [
  [['lint']],
  [['unit', 'infra'], ['e2e'], ['e2e-v2'], ['bundles'], ['own-stacks']],
];

/** Runs a command and reports the CPU time it took (`support/with-cpu-time.mjs`). */
const withCpuTime = resolve(import.meta.dirname, 'support/with-cpu-time.mjs');

interface Ran {
  code: number;
  /** Its output, when buffered (to print whole when it ends); empty when it went to this one's. */
  output: string;
  cpuSeconds: number;
}

/** Runs `command` at nice 19 when `niced`, its output buffered when `buffered`. */
function run(
  command: string[],
  options: { niced: boolean; buffered: boolean; env: NodeJS.ProcessEnv },
): Promise<Ran> {
  return new Promise((done) => {
    const output = options.buffered ? 'pipe' : 'inherit';
    const child = spawn(process.execPath, [withCpuTime, options.niced ? '19' : '0', ...command], {
      cwd: projectRoot,
      env: options.env,
      stdio: ['ignore', output, output, 'pipe'],
    });
    let text = '';
    let cpu = '';
    child.stdout?.on('data', (chunk) => {
      text += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      text += chunk;
    });
    child.stdio[3]?.on('data', (chunk) => {
      cpu += chunk;
    });
    child.once('error', (error) => done({ code: 1, output: `${text}${String(error)}\n`, cpuSeconds: 0 }));
    child.once('close', (code) => done({ code: code ?? 1, output: text, cpuSeconds: Number(cpu) || 0 }));
  });
}

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !phases.some((phase) => phase.name === name));
if (unknown.length > 0) {
  process.stderr.write(
    `No such phase: ${unknown.join(', ')} (phases: ${phases.map((p) => p.name).join(', ')})\n`,
  );
  process.exit(2);
}
const chosen = asked.length === 0 ? phases : phases.filter((phase) => asked.includes(phase.name));

/** The DynamoDB Locals running: none is left behind by a run that ends without reaching its end. */
const dynamodbs = new Set<{ pid: number | undefined }>();
/** The run's temporary folder (`TMPDIR` of every process it starts). */
const runTmpdir = mkdtempSync(join(tmpdir(), 'npm-test-'));
// tsx keeps the code it compiled in the temporary folder (`tsx-<uid>`): the run's links to the usual
// one, so that its processes start from what the runs before compiled, and add to it.
const tsxCache = `tsx-${process.geteuid?.() ?? userInfo().username}`;
mkdirSync(join(tmpdir(), tsxCache), { recursive: true });
symlinkSync(join(tmpdir(), tsxCache), join(runTmpdir, tsxCache));
process.once('exit', () => {
  for (const { pid } of dynamodbs) if (pid !== undefined) process.kill(pid, 'SIGKILL');
  // The link goes, not the cache it leads to: removing follows no link.
  rmSync(runTmpdir, { recursive: true, force: true });
});

/**
 * A DynamoDB Local starting, noted for the exit once started. A start that fails fails the phase that
 * takes it (not the run before that phase: the rejection is handled meanwhile).
 */
function startedDynamoDb(): Promise<DynamoDbLocal> {
  const started = startDynamoDbLocal().then((dynamodb) => {
    dynamodbs.add(dynamodb);
    return dynamodb;
  });
  started.catch(() => undefined);
  return started;
}

/** The phases with stacks yet to take their DynamoDB Local, and the one started for the next of them. */
let stackPhasesLeft = chosen.filter((phase) => phase.stacks).length;
let nextDynamoDb = stackPhasesLeft > 0 ? startedDynamoDb() : undefined;

/** The DynamoDB Local started for this phase; the next phase's starts meanwhile. */
function takeDynamoDb(): Promise<DynamoDbLocal> {
  const taken = nextDynamoDb ?? startedDynamoDb();
  stackPhasesLeft -= 1;
  nextDynamoDb = stackPhasesLeft > 0 ? startedDynamoDb() : undefined;
  return taken;
}

/**
 * What the lint lane printed while a phase of the tests' lane had the output (theirs goes
 * straight to this process's, as it comes): printed when that phase ends.
 */
const held: string[] = [];
let testsRunning = 0;
function print(text: string) {
  if (testsRunning > 0) held.push(text);
  else process.stdout.write(text);
}

interface Row {
  name: string;
  startedAt: number;
  seconds: number;
  cpuSeconds: number;
  passed: boolean;
}
const rows: Row[] = [];
const started = Date.now();
const secondsSince = (since: number) => (Date.now() - since) / 1000;
const verdict = (passed: boolean) => (passed ? 'passed' : 'FAILED');
const line = (name: string, at: string, time: string, cpu: string, said: string) =>
  `${name.padEnd(12)}${at.padStart(6)}${time.padStart(9)}${cpu.padStart(13)}  ${said}\n`;
const rowLine = (row: Row) =>
  line(
    row.name,
    `+${row.startedAt.toFixed(0)}`,
    `${row.seconds.toFixed(0)} s`,
    `${row.cpuSeconds.toFixed(0)} s CPU`,
    verdict(row.passed),
  );

/**
 * Runs one phase: a DynamoDB Local of its own when its files start stacks, its commands side by side.
 * The last command of a phase of the tests' lane prints as it goes; the others' output is printed
 * whole when each ends.
 */
async function runPhase(phase: Phase, last: boolean): Promise<void> {
  const startedAt = secondsSince(started);
  const phaseStart = Date.now();
  const live = !phase.niced;
  const commands = phase.commands.map((c) => c.slice(1).join(' ')).join(' | ');
  print(`\n=== npm test, phase ${phase.name}, at +${startedAt.toFixed(0)} s: ${commands}\n`);
  if (live) testsRunning += 1;
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: runTmpdir };
  const dynamodb = phase.stacks ? await takeDynamoDb() : undefined;
  if (dynamodb) env.TEST_DYNAMODB_ENDPOINT = dynamodb.endpoint;
  const results = await Promise.all(
    phase.commands.map(async (command, index) => {
      // One command's output as it comes: the last of a live phase's.
      const buffered = !live || !last || index < phase.commands.length - 1;
      const result = await run(command, { niced: !live, buffered, env });
      if (buffered) print(`\n--- ${command.slice(1).join(' ')} (exit ${result.code})\n${result.output}`);
      return result;
    }),
  );
  const dynamodbCpu = dynamodb?.pid === undefined ? 0 : cpuSeconds(dynamodb.pid, 'own');
  if (dynamodb) {
    await dynamodb.stop();
    dynamodbs.delete(dynamodb);
  }
  if (live) testsRunning -= 1;
  if (testsRunning === 0) for (const text of held.splice(0)) process.stdout.write(text);
  const row: Row = {
    name: phase.name,
    startedAt,
    seconds: secondsSince(phaseStart),
    cpuSeconds: dynamodbCpu + results.reduce((sum, result) => sum + result.cpuSeconds, 0),
    passed: results.every((result) => result.code === 0),
  };
  rows.push(row);
  print(`\n=== npm test, phase ${rowLine(row)}`);
}

await Promise.all(
  lanes.map(async (waves) => {
    for (const wave of waves) {
      const running = chosen.filter((phase) => wave.includes(phase.name));
      await Promise.all(running.map((phase, index) => runPhase(phase, index === running.length - 1)));
    }
  }),
);

const failed = rows.filter((row) => !row.passed);
process.stdout.write(`\n=== npm test, by phase\n${line('phase', 'start', 'time', 'CPU', '')}`);
for (const row of rows.sort((a, b) => a.startedAt - b.startedAt)) process.stdout.write(rowLine(row));
process.stdout.write(
  line(
    'total',
    '',
    `${secondsSince(started).toFixed(0)} s`,
    `${rows.reduce((sum, row) => sum + row.cpuSeconds, 0).toFixed(0)} s CPU`,
    verdict(failed.length === 0),
  ),
);
process.exit(failed.length === 0 ? 0 : 1);
