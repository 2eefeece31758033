/**
 * Vitest global setup: starts the real local stack once per run (DynamoDB Local, fauxqs, the local
 * scheduler, both gateways, the queue pollers), in a process of its own, plus a webhook receiver, and
 * gives their URLs to the test files.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import type { LocalStack, LocalStackOptions } from '#infra/local/stack';
import { type DialectName, dialectNames } from '#shared/provider/interface/dialects';
import { keyedDigests } from '#shared/secrets';
import { sharedDynamoDb } from './shared-dynamodb.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    sandboxUrl: string;
    depositsUrl: string;
    operatorUrl: string;
    operatorToken: string;
    /** A second operator's token (identity `local-operator-2`), to approve another's resolution. */
    secondOperatorToken: string;
    dynamodbEndpoint: string;
    /** The stack's tables' names there (its own on the run's shared DynamoDB Local). */
    tableNames: LocalStack['tableNames'];
    sqsEndpoint: string;
    schedulerEndpoint: string;
    webhookUrl: string;
    /** The secret the stack signs its webhooks with (the receiver's current one). */
    webhookSecret: string;
    queueUrls: Record<string, { url: string; dlqUrl: string }>;
    /** The dialect the stack's provider client speaks: `dapi-v2` in the `e2e-v2` project. */
    providerDialect: DialectName;
  }
}

/** Settings the tests rely on: short delays, so every path (schedules included) runs in seconds. */
export const testEnv = {
  SANDBOX_APP_SECRET: 'sandbox-local-app-secret',
  // The bank's time over each operation: 200 ms. At 400 the end-to-end files took a tenth longer
  // (659 s of files' time where 592), at 100 no shorter than at 200; a file that needs the bank
  // slower or at once sets its user's own (`asyncDelaySeconds`).
  SANDBOX_ASYNC_DELAY_MS: '200',
  // A hanging bank holds a call past the provider client's timeout.
  SANDBOX_TIMEOUT_MS: '2500',
  // The fast cool-down bank (3.6 s) then goes through the schedule path.
  LONG_WAIT_SECONDS: '2',
  INPUT_TTL_SECONDS: '6',
  // The bank waits for an answer a little longer than the stack does, as a real bank's five minutes
  // outlast the stack's four: a question the stack found too late to be answered in time is asked
  // again once the bank's has expired, seconds later, not after the sandbox's default five minutes
  // (the connection busy until then).
  SANDBOX_INPUT_TTL_SECONDS: '8',
  STALL_AFTER_SECONDS: '3',
  // Two seconds: on two cores shared by the files and their stack, a sandbox answer took more than
  // one, and a transfer answered late is an unknown outcome no test planned.
  PROVIDER_TIMEOUT_MS: '2000',
  MAX_RETRIES: '6',
  // Webhook retries come at once (the backoff itself is a unit test), so the DLQ is seconds away.
  WEBHOOK_RETRY_BASE_SECONDS: '0',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
  // One operator resolves `done` alone up to AED 1,000.00 and KWD 100.000 (minor units); above, two.
  RESOLVE_APPROVAL_ABOVE: JSON.stringify({ AED: 100_000, KWD: 100_000 }),
  // A fixed owner key (base64 of 39 bytes), so that a test can key a token as the stack does.
  OWNER_KEY: Buffer.from('the owner key of the tests local stacks').toString('base64'),
};

/**
 * How often the tests' stacks run the sweeper (AWS: every few minutes): often enough that a deposit
 * stalled for STALL_AFTER_SECONDS is re-driven within seconds, and no oftener: each run queries every
 * shard of the sweeper's index, which kept an idle stack's DynamoDB Local at a sixth of a core once
 * a second.
 */
export const TEST_SWEEP_INTERVAL_MS = 2_000;

/** The keys the tests' stacks give a token or user secret (a deposit's `ownerKey`, `readerKey`). */
export const testOwnerDigests = keyedDigests(Buffer.from(testEnv.OWNER_KEY, 'base64'));

export default async function setup(project: TestProject) {
  const providerDialect: DialectName = project.name === 'e2e-v2' ? 'dapi-v2' : dialectNames[0];
  // Each project's stack runs in a process of its own (`stack-process.ts`): a stack's handlers read
  // their settings from the process's environment once, so two stacks in this process would share
  // the first one's; and the e2e files ran faster beside a stack of their own than beside one in
  // this process, which also hands the workers their modules and hears their results (the e2e
  // project alone: 75 s and 110 s of CPU, where 85 s and 133 s). The `e2e-processes` project's
  // files use the `e2e` project's stack (and webhook receiver) when both run in one vitest run, as
  // `npm test` runs them (`test/run.ts`): their settings are the same, so one stack start and one
  // DynamoDB Local the less.
  const start = () => startWorld(project.name, providerDialect);
  const world = sharesOneStack.has(project.name) ? await sharedWorld(start) : await start();
  const { stack, webhook } = world;
  project.provide('sandboxUrl', stack.sandboxUrl);
  project.provide('depositsUrl', stack.depositsUrl);
  project.provide('operatorUrl', stack.operatorUrl);
  project.provide('operatorToken', stack.operatorToken);
  project.provide('secondOperatorToken', stack.secondOperatorToken);
  project.provide('dynamodbEndpoint', stack.dynamodbEndpoint);
  project.provide('tableNames', stack.tableNames);
  project.provide('sqsEndpoint', stack.sqsEndpoint);
  project.provide('schedulerEndpoint', stack.schedulerEndpoint);
  project.provide('webhookUrl', webhook.url);
  project.provide('webhookSecret', webhook.secret);
  project.provide('queueUrls', stack.queueUrls);
  project.provide('providerDialect', providerDialect);
  return () => world.stop();
}

interface World {
  stack: GivenStack;
  webhook: Awaited<ReturnType<typeof startWebhookReceiver>>;
  stop(): Promise<void>;
}

/** A webhook receiver and a stack, in a process of its own, that delivers to it. */
async function startWorld(projectName: string, providerDialect: DialectName): Promise<World> {
  // Shared by the project's files: each refuses only its own deposits' deliveries.
  const webhook = await startWebhookReceiver({ shared: true });
  const stack = await stackProcess({
    // The `bundles` project's stack runs each function from the bundle `cdk synth` builds.
    ...(projectName === 'bundles' ? { handlers: 'bundles' as const } : {}),
    ...sharedDynamoDb(),
    sandboxPort: 0,
    depositsPort: 0,
    operatorPort: 0,
    visibilityTimeoutSeconds: 2,
    sweepIntervalMs: TEST_SWEEP_INTERVAL_MS,
    env: {
      ...testEnv,
      PROVIDER_DIALECT: providerDialect,
      // v2 sends no `sync`: the provider holds each call, at most this long (well within the client's 2 s),
      // then answers `initialized`; a bank that takes longer is read back, as at the provider.
      ...(providerDialect === 'dapi-v2' ? { SANDBOX_HOLD_MS: '500' } : {}),
      // Each function of a stack of bundles starts cold, in a process of its own, on its first event:
      // a question waits longer for its answer than the 6 s the other stacks give it.
      ...(projectName === 'bundles' ? { INPUT_TTL_SECONDS: '30', SANDBOX_INPUT_TTL_SECONDS: '32' } : {}),
      WEBHOOK_URL: `${webhook.url}/hooks`,
      WEBHOOK_SECRET: webhook.secret,
      // The shared stack signs as during a rotation of its secret: each delivery with both.
      WEBHOOK_PREVIOUS_SECRET: webhook.previousSecret,
    },
  });
  return {
    stack,
    webhook,
    async stop() {
      await stack.stop();
      await webhook.stop();
    },
  };
}

/** The projects whose files share one stack (the same settings: the spec dialect). */
const sharesOneStack = new Set(['e2e', 'e2e-processes']);

/**
 * The shared world, started by the first project of `sharesOneStack` to set up and
 * stopped when the last of them tears down. Held on `globalThis`: each project loads this module
 * on its own.
 */
async function sharedWorld(start: () => Promise<World>): Promise<World> {
  const held = globalThis as { sharedTestWorld?: { world: Promise<World>; users: number } };
  held.sharedTestWorld ??= { world: start(), users: 0 };
  const shared = held.sharedTestWorld;
  shared.users += 1;
  const world = await shared.world;
  return {
    ...world,
    async stop() {
      shared.users -= 1;
      if (shared.users > 0) return;
      held.sharedTestWorld = undefined;
      await world.stop();
    },
  };
}

type GivenStack = Pick<
  LocalStack,
  | 'sandboxUrl'
  | 'depositsUrl'
  | 'operatorUrl'
  | 'operatorToken'
  | 'secondOperatorToken'
  | 'dynamodbEndpoint'
  | 'tableNames'
  | 'sqsEndpoint'
  | 'schedulerEndpoint'
  | 'queueUrls'
>;

/** A stack in a child process (`stack-process.ts`), with only the machine's own environment. */
async function stackProcess(
  options: LocalStackOptions = {},
): Promise<GivenStack & { stop(): Promise<void> }> {
  const own = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'JAVA_HOME'].flatMap((name) =>
    process.env[name] === undefined ? [] : [[name, process.env[name]]],
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/stack-process.ts'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: { ...Object.fromEntries(own), STACK_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const given = await new Promise<GivenStack>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the stack's process exited (${code}) before it started`)));
    lines.on('line', (line) => {
      if (line.startsWith('STACK ')) resolve(JSON.parse(line.slice('STACK '.length)) as GivenStack);
      else process.stdout.write(`${line}\n`);
    });
  });
  return {
    ...given,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
