import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The local stacks the tests start (in this process's global setups and in the test files) load the
// X-Ray SDK in manual mode, as `infra/local/xray-manual-mode.ts` says why; set here too, before any
// test file's imports can load the SDK first.
process.env.AWS_XRAY_MANUAL_MODE ??= 'true';

/**
 * The files that start first in their project, in this order; the rest follow as the runner sorts them.
 *   - infra (two at a time): `app.test.ts` first, in a worker of its own from the start (esbuild for
 *     every function, the project's longest file); the other worker takes every other file, the
 *     stacks' files first, and synthesizes each configuration once for all of them (a stacks file
 *     taken by the first worker after `app.test.ts` would synthesize both again there).
 *   - the files with a stack of their own (the last group, two at a time): the chaos run first (its
 *     one test is the group's longest), beside the files built to run under load (the killed workers,
 *     the DynamoDB faults), then the clock's; the browser's last, once the chaos run's heaviest minutes
 *     (its hundred deposits starting) are behind it: a console test beside them saw a provider read
 *     pass the client's timeout. Left to itself, the runner starts the chaos run after the browser's
 *     files and ends the group a minute after them.
 *   - the end-to-end files (eight at a time) and the v2 dialect's: the longest first (15 to 47 s each,
 *     where most take 1 to 10), so that none starts late and holds the run after the others. The
 *     runner sorts a clean clone's files by size, having no durations of a run before. The v2 project
 *     has twelve files: its eight longest start together, and its four shortest follow as the first
 *     end. With only seven of its files listed, `deposit-cancel-states.test.ts` (21 s) started 14 s in
 *     and ended the phase: 37 to 40 s, where 33 and 34 s with every long one listed.
 */
const startOrder = [
  'test/infra/app.test.ts',
  'test/infra/stacks',
  ...[
    'webhooks',
    'new-banks',
    'deposits',
    'deposit-concurrency',
    'sources',
    'deposit-cancel-list',
    'provider-pace',
    'deposit-crashes',
    'deposit-failures',
    'deposit-cancel-states',
    'late-answers',
    'deposit-provider-faults',
    'reconcile-reads',
    'deposit-messages',
    'sources-together',
  ].map((name) => `test/e2e/${name}.test.ts`),
  'test/chaos/chaos.test.ts',
  'test/chaos/deaths.test.ts',
  'test/chaos/dynamodb-faults.test.ts',
  'test/clock/',
  'test/browser/',
];

class StartOrderFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const path = relative(import.meta.dirname, spec.moduleId);
      const at = startOrder.findIndex((start) => path.startsWith(start));
      if (at !== -1) return at;
      // The files that start processes after every other, once the e2e files have all started.
      return processFiles.includes(path) ? startOrder.length + 1 : startOrder.length;
    };
    const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    return sorted
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => group(a.spec) - group(b.spec) || rank(a.spec) - rank(b.spec) || a.index - b.index)
      .map(({ spec }) => spec);
  }
}

/** The unit files at once: they wait on nothing, so more workers than cores only load more module graphs. */
const UNIT_WORKERS = 4;

/**
 * The end-to-end files at once, against the one shared local stack: they mostly wait (on the bank's
 * time, cool-downs, polls) while the stack does the work (its handlers and the sandbox in this
 * process, DynamoDB Local beside it). The e2e project alone on two cores: 757 s one by one, 176 s
 * four at a time, 110 s eight at a time, in less CPU time (the stack idles less).
 */
const E2E_WORKERS = 8;

/**
 * The end-to-end files that start processes of their own (`npm start`, the demo, a stack, `tsc` over
 * a scratch project): each takes a core for a while, which slows the deposit files beside it. They
 * start last in the e2e project's pool (`StartOrderFirst`), once every e2e file has started (the
 * shortest last), so that only the last few run beside them, on the e2e project's stack
 * (`local-stack.ts` gives both projects the one stack when they run in one vitest run, as `npm test`
 * runs them). The phase took 101 and 102 s so, where 106 s with them after the e2e files, two at a time.
 */
const processFiles = ['client-package', 'demo', 'npm-start', 'npm-start-activity'].map(
  (name) => `test/e2e/${name}.test.ts`,
);

/**
 * The unit files that set the environment, stub a global, spy on a shared object, replace a class's
 * methods or mock a module: each runs in a fresh module graph, so what it sets reaches no other file
 * (`test/unit/vitest-groups.test.ts` finds them). `crash-evidence` installs the crash points, which
 * replace the provider client's methods with ones that read the stack's owner key: in a shared graph,
 * the provider's unit files after it failed on its missing setting.
 */
const isolatedUnitFiles = [
  'config-owner-key',
  'config-secure-urls',
  'crash-evidence',
  'crash-lost-answer',
  'handler-context',
  'local-activity',
  'local-loggers',
  'metrics',
  'operator-read',
  'operator-route',
  'provider-dialect-config',
  'step-consumer',
  'tracing',
].map((name) => `test/unit/${name}.test.ts`);

/** The deposit files the `e2e-v2` project runs again in the v2 dialect. */
const dialectFiles = [
  'deposits',
  'reconcile',
  'reconcile-reads',
  'deposit-failures',
  'deposit-crashes',
  'deposit-messages',
  'deposit-provider-faults',
  'deposit-cancel-states',
  'repeat-deposit',
  'sources',
  'sources-together',
  // Its own: that every call a deposit makes in v2 is a v2 call.
  'deposits-v2',
].map((name) => `test/e2e/${name}.test.ts`);

/**
 * `npm test` (test/run.ts) runs these projects in phases, one vitest run each, so that a project's
 * stack lives only while its files run; `vitest run` alone runs them all, in the group order below,
 * with every project's stack set up at its start.
 */
export default defineConfig({
  test: {
    experimental: { fsModuleCache: true },
    sequence: { sequencer: StartOrderFirst },
    projects: [
      {
        // One module graph per worker, shared by its files: each file's imports (zod schemas, the SDK's
        // clients, the sandbox's catalog) load once per worker instead of once per file, which took
        // more of the project's time than its tests. The files that set the environment, stub a
        // global or mock a module run in a graph of their own (`unit-isolated`).
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: isolatedUnitFiles,
          isolate: false,
          maxWorkers: UNIT_WORKERS,
          // They wait on nothing: a timeout only ends a hang, and the infra project shares the cores.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'unit-isolated',
          include: isolatedUnitFiles,
          maxWorkers: UNIT_WORKERS,
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // One module graph per worker, shared by its files, as the unit project's: each file's
          // imports (the SDK's clients, zod schemas, the contracts) load once per worker, not per file:
          // a sixth of the project's time and CPU. A file that stubs the environment or spies on a
          // shared client restores both after its tests (outbox-relay-dlq.test.ts).
          isolate: false,
          exclude: ['test/e2e/deposits-v2.test.ts', ...processFiles],
          // One local stack (DynamoDB Local + gateway) for the whole run, shared by every file.
          globalSetup: ['test/support/local-stack.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // Eight files at once: they mostly wait (on the bank's time, cool-downs, polls), and each
          // makes users of its own, so they run beside each other as callers of one service would.
          // Their tests run one at a time within a file: side by side as well, the stack's process
          // (its handlers, the sandbox) was saturated, and steps came seconds late.
          maxWorkers: E2E_WORKERS,
          // After the unit projects; the files that start processes in the same pool, last.
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          // The deposit files whose deposits cross the provider, again, against a shared stack whose
          // provider client speaks the real provider's v2 dialect (docs/sandbox.md "Provider dialects").
          // The API's own files (validation, access, listing) reach the provider the same way in both.
          name: 'e2e-v2',
          include: dialectFiles,
          globalSetup: ['test/support/local-stack.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          maxWorkers: E2E_WORKERS,
          // After the e2e project: two stacks of eight files each would slow both past their timeouts.
          sequence: { groupOrder: 2 },
          // One module graph per worker, as the e2e project's.
          isolate: false,
        },
      },
      {
        test: {
          name: 'e2e-processes',
          include: processFiles,
          globalSetup: ['test/support/local-stack.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          maxWorkers: E2E_WORKERS,
          // The e2e project's pool: they start once its files have all started (`startOrder`).
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'infra',
          // Two: `app.test.ts` in one worker (see `startOrder`), the others in the other. One module
          // graph per worker for its files: aws-cdk-lib loads once there, and each configuration is
          // synthesized once for every file that asserts on it (`test/infra/synth.ts`). One worker
          // for all took 200 s on two cores, the bundling file's 100 s after the others' 90.
          maxWorkers: 2,
          isolate: false,
          include: ['test/infra/**/*.test.ts'],
          // CDK synthesis (and, in one file, esbuild for every function) takes a while on a small machine.
          testTimeout: 120_000,
          hookTimeout: 300_000,
          // After the others: esbuild takes every core, which would slow the e2e tests past their timeouts.
          sequence: { groupOrder: 3 },
        },
      },
      {
        test: {
          // The bundles `cdk synth` builds, run as deployed: a local stack whose every function is its
          // bundle in a process of its own (`startLocalStack({ handlers: 'bundles' })`), built once for
          // the run (and reused while nothing bundled changes: node_modules/.cache/local-bundles).
          name: 'bundles',
          maxWorkers: 1,
          include: ['test/bundles/**/*.test.ts'],
          globalSetup: ['test/support/local-stack.ts'],
          // Each function's first event is a cold start of its own process (a second or more when loaded).
          testTimeout: 120_000,
          hookTimeout: 60_000,
          // After the infra project, whose `cdk synth` keeps the bundles' code for it (a stack of
          // bundles builds only when none is kept: esbuild then takes every core).
          sequence: { groupOrder: 5 },
        },
      },
      {
        test: {
          name: 'bench',
          maxWorkers: 1,
          // The bench's counting against what went over the wire: its own local stack, in the test's process.
          include: ['test/bench/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // A group of its own: a group's projects share one pool, of one size (`npm test` runs it
          // beside the infra project).
          sequence: { groupOrder: 4 },
        },
      },
      {
        test: {
          name: 'chaos',
          // Two files at once, each on a stack of its own: the 100 deposits' run beside the shorter
          // files (the killed workers, the DynamoDB faults), which end before it.
          maxWorkers: 2,
          include: ['test/chaos/**/*.test.ts'],
          // A whole run: its own local stack (not the e2e project's), 100 deposits under faults, the audit.
          testTimeout: 600_000,
          hookTimeout: 120_000,
          // Last, with the browser and clock projects: the projects with a stack of their own per file.
          sequence: { groupOrder: 6 },
        },
      },
      {
        test: {
          name: 'browser',
          // The group's two workers (a group's projects share its pool: one count for all).
          maxWorkers: 2,
          // The operator console in Chromium: its own local stack (console.test.ts) and `npm run console`.
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 90_000,
          hookTimeout: 180_000,
          // Beside the chaos files, one file at a time (a browser and a stack of its own).
          sequence: { groupOrder: 6 },
        },
      },
      {
        test: {
          name: 'clock',
          maxWorkers: 2,
          // A day-long cool-down in test time: its own local stack, whose clock the test moves forward
          // (the e2e project's shared stack keeps real time for the tests that run beside each other).
          include: ['test/clock/**/*.test.ts'],
          testTimeout: 90_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 6 },
        },
      },
    ],
  },
});
