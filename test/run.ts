/**
 * `npm test`: the type check, the linter and every vitest project, in phases, each phase one vitest
 * run of the projects that may share the machine, so that a project's local stack lives only while
 * its files run. (One `vitest run` of every project sets up every project's stack at its start, and
 * each idles, with its pollers, sweeper and DynamoDB Local, until the whole run ends; the stack of
 * bundles is built before the first test.)
 *
 *   1. the type check, the linter and the unit tests, and beside them the infra project (CDK,
 *      esbuild, whose bundles' code it keeps for the stack of bundles) and the bench's counting: CPU,
 *      and no shared stack whose timeouts either could slow the other past (the unit tests' timeout
 *      is long enough for two cores shared: they wait on nothing);
 *   2. the end-to-end files against one stack, then the files that start processes, on that stack;
 *   3. the deposit files again in the provider's v2 dialect, on a stack of that dialect;
 *   4. the stack of bundles, its code kept by wave 1 (it builds nothing; beside wave 3, its functions'
 *      cold starts slowed the v2 files past their timeouts);
 *   5. the projects with a stack of their own per file, two files at a time: chaos, browser, clock.
 *
 * One DynamoDB Local serves each wave with stacks: each stack its files start makes its tables there
 * under names of its own (`test/support/shared-dynamodb.ts`), where each started a JVM of its own (some
 * 3 s of a core each, seven in the last wave). A wave's own, not the run's: DynamoDB Local's stream
 * reads slow with every write it has taken, to any table (ten times the CPU after 20,000 writes), and
 * on one that had served the waves before it, the last wave's chaos run took twice its time and
 * failed (the README's "npm test").
 *
 * Every phase runs even when one before it failed; the run fails if any did. At the end, a table of
 * each wave's time and the CPU time it took (its processes' user and system time: a figure that
 * other load on the machine changes much less than the time; one figure for phases side by side). `npm test -- <phase>...` runs only
 * the phases named (`unit`, `e2e`, `e2e-v2`, `infra`, `bundles`, `own-stacks`).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { startDynamoDbLocal } from '#infra/local/dynamodb-local';

const projectRoot = resolve(import.meta.dirname, '..');
const bin = (name: string) => resolve(projectRoot, 'node_modules/.bin', name);
const vitest = (...projects: string[]) => [
  bin('vitest'),
  'run',
  ...projects.flatMap((p) => ['--project', p]),
];

interface Phase {
  name: string;
  /** Commands run side by side; output of all but the last is printed when it ends, not as it comes. */
  commands: string[][];
}

const phases: Phase[] = [
  {
    name: 'unit',
    commands: [[bin('tsc'), '--noEmit'], [bin('biome'), 'check', '.'], vitest('unit', 'unit-isolated')],
  },
  // Two runs side by side: the infra files, two at a time (CDK; esbuild for every function in one of
  // them, the longest), and the bench's counting (its own stack); in one run they took turns.
  { name: 'infra', commands: [vitest('bench'), vitest('infra')] },
  { name: 'e2e', commands: [vitest('e2e', 'e2e-processes')] },
  { name: 'e2e-v2', commands: [vitest('e2e-v2')] },
  { name: 'bundles', commands: [vitest('bundles')] },
  { name: 'own-stacks', commands: [vitest('chaos', 'browser', 'clock')] },
];

/** The phases that run side by side, in order: a wave starts when the one before it has ended. */
const waves: string[][] = [['unit', 'infra'], ['e2e'], ['e2e-v2'], ['bundles'], ['own-stacks']];

/**
 * The CPU time, in seconds, of this process's children that have ended (a wave's DynamoDB Local
 * among them, stopped at its end) (Linux; 0 elsewhere).
 */
function childrenCpuSeconds(): number {
  try {
    // Fields after the command's closing parenthesis: cutime and cstime are the 14th and 15th, in ticks.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}

function run(command: string[], buffered: boolean): Promise<{ code: number; output: string }> {
  const [file, ...args] = command as [string, ...string[]];
  return new Promise((done) => {
    const child = spawn(file, args, { cwd: projectRoot, stdio: buffered ? 'pipe' : 'inherit' });
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.once('error', (error) => done({ code: 1, output: `${output}${String(error)}\n` }));
    child.once('close', (code) => done({ code: code ?? 1, output }));
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

/** The waves whose files start stacks, each on the wave's DynamoDB Local. */
const withStacks = new Set(['e2e', 'e2e-v2', 'bundles', 'own-stacks']);
let dynamodb: Awaited<ReturnType<typeof startDynamoDbLocal>> | undefined;
// Not left behind by a run that ends without reaching its end.
process.once('exit', () => {
  if (dynamodb?.pid !== undefined) process.kill(dynamodb.pid, 'SIGKILL');
});

const line = (name: string, seconds: number, cpu: number, said: string) =>
  `${name.padEnd(16)}${seconds.toFixed(0).padStart(7)} s${cpu.toFixed(0).padStart(9)} s CPU  ${said}\n`;
const verdict = (passed: boolean) => (passed ? 'passed' : 'FAILED');

/** A row a wave: its phases' names, its time, its processes' CPU time (side by side: one figure). */
const rows: { name: string; seconds: number; cpuSeconds: number; passed: boolean }[] = [];
const started = Date.now();
for (const wave of waves) {
  const running = chosen.filter((phase) => wave.includes(phase.name));
  if (running.length === 0) continue;
  const name = running.map((phase) => phase.name).join(' + ');
  const commands = running.flatMap((phase) => phase.commands);
  process.stdout.write(
    `\n=== npm test, phase ${name}: ${commands.map((c) => c.slice(1).join(' ')).join(' | ')}\n`,
  );
  const phaseStart = Date.now();
  const cpuBefore = childrenCpuSeconds();
  if (running.some((phase) => withStacks.has(phase.name))) {
    dynamodb = await startDynamoDbLocal();
    process.env.TEST_DYNAMODB_ENDPOINT = dynamodb.endpoint;
  }
  const results = await Promise.all(
    commands.map(async (command, index) => {
      const buffered = index < commands.length - 1;
      const result = await run(command, buffered);
      if (buffered)
        process.stdout.write(`\n--- ${command.slice(1).join(' ')} (exit ${result.code})\n${result.output}`);
      return result.code;
    }),
  );
  await dynamodb?.stop();
  dynamodb = undefined;
  delete process.env.TEST_DYNAMODB_ENDPOINT;
  const row = {
    name,
    seconds: (Date.now() - phaseStart) / 1000,
    cpuSeconds: childrenCpuSeconds() - cpuBefore,
    passed: results.every((code) => code === 0),
  };
  rows.push(row);
  process.stdout.write(
    `\n=== npm test, phase ${line(row.name, row.seconds, row.cpuSeconds, verdict(row.passed))}`,
  );
}

const total = (Date.now() - started) / 1000;
process.stdout.write('\n=== npm test, by phase\n');
for (const row of rows)
  process.stdout.write(line(row.name, row.seconds, row.cpuSeconds, verdict(row.passed)));
const failed = rows.filter((row) => !row.passed);
process.stdout.write(
  line(
    'total',
    total,
    rows.reduce((sum, row) => sum + row.cpuSeconds, 0),
    verdict(failed.length === 0),
  ),
);
process.exit(failed.length === 0 ? 0 : 1);
