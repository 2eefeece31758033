/**
 * The local stack: the whole service on this machine, with the handler code Lambda runs.
 *   DynamoDB Local  the topology's tables (in a DynamoDB Local of its own, or under names of its
 *                   own in one it is given: the tests' one per wave)
 *   fauxqs          the topology's queues and DLQs, with pollers feeding their consumers (the
 *                   step handlers, the webhook notifier, the outbox relay's re-relays)
 *   scheduler       a local EventBridge Scheduler endpoint that fires one-shot schedules
 *   gateways        the sandbox, deposits and operator APIs, as API Gateway v2 events (the operator
 *                   API behind its token, with the operator console's page)
 *   streams         a poller of the deposits table's stream feeding the outbox relay
 *   sweeper         on an interval, as the recurring schedule does in AWS
 * `npm start` and the test setup both start it through here.
 */
import './xray-manual-mode.ts';

import { randomBytes } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { withOwnLogger } from '#shared/logger';
import {
  depositsApi,
  operatorApi,
  outbox,
  queues,
  sandboxApi,
  scheduleGroup,
  stepQueueKeys,
  sweeper,
  tables,
} from '#shared/topology';
import { serveConsole } from '../console/serve.ts';
import { resourceVariables } from '../environment.ts';
import { transitionsSayer } from './activity.ts';
import { installLocalClock } from './clock.ts';
import { localControls } from './controls.ts';
import { installCrashPoints } from './crash-wrappers.ts';
import { localCredentials } from './credentials.ts';
import { installDynamoDbFaults } from './dynamodb-fault-middleware.ts';
import { createTables, deleteTables, startDynamoDbLocal } from './dynamodb-local.ts';
import { ensurePortFree, startGateway } from './gateway.ts';
import { type HandlersMode, loadHandler, sourceHandlers, useHandlers } from './handlers.ts';
import { lambdaContext } from './lambda-context.ts';
import { installProviderJournal } from './provider-journal.ts';
import { startLocalQueues } from './queues.ts';
import { installRelayFaults } from './relay-faults.ts';
import { startLocalScheduler } from './scheduler.ts';
import { startStepWorkers } from './step-workers.ts';
import { startStreamPoller } from './streams.ts';
import { inInvocation, installLocalTraces } from './traces.ts';
import { localWallets } from './wallets.ts';

export interface LocalStackOptions {
  host?: string;
  sandboxPort?: number;
  depositsPort?: number;
  /** The operator API's port (and the console's page): 3002 by default. */
  operatorPort?: number;
  /** The operator API's bearer token; random per start when not given. */
  operatorToken?: string;
  /** A second operator's token (identity `local-operator-2`), to approve another's resolution. */
  secondOperatorToken?: string;
  /** How long a failed SQS message stays hidden before it comes back (AWS: six times the timeout). */
  visibilityTimeoutSeconds?: number;
  sweepIntervalMs?: number;
  /**
   * Where the step queues' pollers run: in this process (the default), or in a child process that a
   * test can kill with SIGKILL (`step-workers.ts`; its crash points kill it instead of throwing).
   */
  stepWorkers?: 'in-process' | 'child-process';
  /**
   * What runs each function: its TypeScript source in this process (the default), or the bundle
   * `cdk synth` builds, in a process of its own with the environment its stack gives it
   * (`handlers.ts`, `bundles/`). The local tools (crash points, faults of DynamoDB and the relay, the
   * provider journal, the local clock, the trace journal) reach only the sources.
   */
  handlers?: HandlersMode;
  /**
   * A DynamoDB Local already running (the tests' one per wave of `npm test`, `test/run.ts`): the stack makes
   * its tables there under names of its own (a random prefix: several stacks share it) and deletes
   * them when it stops. Without it, the stack starts a DynamoDB Local of its own.
   */
  dynamodb?: { endpoint: string };
  /** Extra environment for the handlers (tests lower delays and thresholds here). */
  env?: Record<string, string>;
  /** Told what the stack is doing while it starts (`npm start` prints it). */
  onProgress?: (message: string) => void;
}

export interface LocalStack {
  sandboxUrl: string;
  depositsUrl: string;
  /** The operator API, and the console's page at its root. */
  operatorUrl: string;
  /** What the operator API takes as `Authorization: Bearer <operatorToken>` (identity `local-operator`). */
  operatorToken: string;
  /**
   * A second operator's token (identity `local-operator-2`): a resolution to `done` above the
   * approval threshold needs a second, different operator's approval.
   */
  secondOperatorToken: string;
  dynamodbEndpoint: string;
  /** The tables' names there (the topology's local names, or with the stack's prefix on a shared one). */
  tableNames: Record<keyof typeof tables, string>;
  sqsEndpoint: string;
  schedulerEndpoint: string;
  /** Queue and DLQ URLs by topology key. */
  queueUrls: Record<string, { url: string; dlqUrl: string }>;
  /**
   * Restarts the queue pollers (the step workers and the webhook deliverer), as a deployment or a
   * Lambda recycle would: the running ones finish the batch in hand without deleting it (it comes
   * back after the visibility timeout), then, after `pauseMs`, new ones start, each a new (cold)
   * instance of its handler's module. Step workers in a child process are killed instead (SIGKILL).
   */
  restartWorkers(options?: { pauseMs?: number }): Promise<void>;
  /** The step workers' processes killed so far (child-process mode), at crash points and not. */
  stepWorkerKills(): { planned: number; unplanned: number } | undefined;
  stop(): Promise<void>;
}

type StreamHandler = Parameters<typeof startStreamPoller>[0]['handler'];

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const host = options.host ?? '127.0.0.1';
  // Lambda runs Node 22; the SDK's warning about Node 20 is noise on a developer machine.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  // One readable line per log line at a terminal (JSON in AWS): `shared/logger.ts`.
  process.env.LOG_FORMAT ??= 'lines';
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  const progress = options.onProgress ?? (() => {});
  // A port already taken fails the start at once, before DynamoDB Local is started at all.
  await ensurePortFree(sandboxApi.name, host, options.sandboxPort ?? 3001);
  await ensurePortFree(depositsApi.name, host, options.depositsPort ?? 3000);
  await ensurePortFree(operatorApi.name, host, options.operatorPort ?? 3002);
  const operatorToken = options.operatorToken ?? randomBytes(24).toString('base64url');
  const secondOperatorToken = options.secondOperatorToken ?? randomBytes(24).toString('base64url');
  try {
    let endpoint = options.dynamodb?.endpoint;
    if (!endpoint) {
      const started = await startDynamoDbLocal(progress);
      stops.push(() => started.stop());
      endpoint = started.endpoint;
    }
    const dynamodb = { endpoint, shared: options.dynamodb !== undefined };
    // On a DynamoDB Local it shares, the stack's tables are its own by a prefix.
    const prefix = dynamodb.shared ? `s${randomBytes(4).toString('hex')}-` : '';
    const tableKeys = Object.keys(tables) as (keyof typeof tables)[];
    const tableNames = Object.fromEntries(
      tableKeys.map((key) => [key, `${prefix}${tables[key].localName}`]),
    ) as Record<keyof typeof tables, string>;
    const visibility = options.visibilityTimeoutSeconds ?? 10;
    progress('Starting SQS (fauxqs), the local scheduler and the tables...');
    const sqs = await startLocalQueues(visibility);
    stops.push(() => sqs.stop());
    const scheduler = await startLocalScheduler({ sqs: sqs.client });
    stops.push(() => scheduler.stop());

    // The handlers read their configuration when first imported, which the gateways do below.
    const userEnv = options.env ?? {};
    Object.assign(process.env, {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
      DYNAMODB_ENDPOINT: dynamodb.endpoint,
      SQS_ENDPOINT: sqs.endpoint,
      SCHEDULER_ENDPOINT: scheduler.endpoint,
      // The resources' variables, as in AWS (`resourceVariables`); one process holds every handler,
      // so each sees them all (a bundle gets only its template's: `bundles/`).
      ...resourceVariables({
        tables: tableNames,
        queue: (key) => sqs.byKey[key],
        scheduleGroup: scheduleGroup.localName,
        schedulerRoleArn: 'arn:aws:iam::000000000000:role/local-scheduler',
        schedulerDlqArn: sqs.schedulerDlq.arn,
        // Without a webhook there is nothing to notify: no events are queued.
        notifies: Boolean(userEnv.WEBHOOK_URL ?? process.env.WEBHOOK_URL),
        json: JSON.stringify,
      }),
      WALLET_ACCOUNTS: JSON.stringify(localWallets),
      DEFAULT_WALLET_ACCOUNT_ID: localWallets[0]?.id ?? '',
      LOCAL_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      // What callers' tokens are keyed by (HMAC): OWNER_KEY when set, else random per start (the
      // tables are in memory: nothing outlives the stack that keyed it).
      OWNER_KEY: process.env.OWNER_KEY || randomBytes(32).toString('base64'),
      // Metrics are CloudWatch EMF lines; locally they would only clutter the terminal.
      POWERTOOLS_METRICS_DISABLED: 'true',
      ...userEnv,
    });
    // Nor from an earlier stack of this process.
    if (!process.env.WEBHOOK_URL) delete process.env[queues.notify.urlEnvVar];

    if (dynamodb.shared) stops.push(() => deleteTables(dynamodb.endpoint, Object.values(tableNames)));
    await createTables(
      dynamodb.endpoint,
      tableKeys.map((key) => ({ name: tableNames[key], spec: tables[key] })),
    );
    useHandlers(sourceHandlers);
    if (options.handlers === 'bundles') {
      if (options.stepWorkers === 'child-process')
        throw new Error('the step workers run in a child process with the sources only, not the bundles');
      const { startBundles } = await import('./bundles/start.ts');
      const bundles = await startBundles(process.env, progress);
      stops.push(() => bundles.stop());
      useHandlers(bundles.loader);
    }
    progress('Loading the handlers and starting the sandbox, deposits and operator APIs...');
    const sandbox = await startGateway(sandboxApi, host, options.sandboxPort ?? 3001);
    stops.push(() => sandbox.close());
    process.env.PROVIDER_BASE_URL = userEnv.PROVIDER_BASE_URL ?? sandbox.url;

    // Local-only wrappers from outside: crash points around the deposit records and the provider
    // client, DynamoDB faults in the SDK clients' middleware, the journal of the provider calls, and
    // the clock a developer or a test moves forward.
    installCrashPoints();
    installDynamoDbFaults();
    installProviderJournal();
    installRelayFaults();
    installLocalClock();
    installLocalTraces();
    const deposits = await startGateway(depositsApi, host, options.depositsPort ?? 3000, localControls());
    stops.push(() => deposits.close());
    // The operator API: the token plays API Gateway's IAM authorizer; the console's page is public
    // (its calls carry the token, which the page takes from its URL's fragment).
    const operator = await startGateway(operatorApi, host, options.operatorPort ?? 3002, new Map(), {
      requireToken: [
        { token: operatorToken, identity: 'local-operator' },
        { token: secondOperatorToken, identity: 'local-operator-2' },
      ],
      page: serveConsole,
      // The console calls it every 2 s: its request and audit lines only with LOG_AUDIT=1.
      audited: true,
    });
    stops.push(() => operator.close());
    // Each queue's pollers at the start and while it is empty; they grow with its messages up to its
    // maxConcurrency (5 per step queue), as the event source mapping does (`pollers.ts`).
    const concurrency = 2;
    const inChild = options.stepWorkers === 'child-process';
    const pollers = { concurrency, except: inChild ? Object.values(stepQueueKeys) : [] };
    await sqs.startPollers(pollers);
    const workers = inChild
      ? await startStepWorkers({
          sqsEndpoint: sqs.endpoint,
          // Two processes of one poller per queue each at the start: as many as in this process, and
          // one killed leaves the other working; they share each queue's maximum (3 and 2).
          processes: 2,
          concurrency: concurrency / 2,
          queues: Object.values(stepQueueKeys).map((key) => ({ key, ...sqs.byKey[key] })),
        })
      : undefined;
    if (workers) stops.push(() => workers.stop());

    // The outbox relay, fed by the deposits table's stream as the event source mapping does in AWS.
    const relay = { handler: await loadHandler<StreamHandler>(outbox.handler) };
    const stream = await startStreamPoller({
      endpoint: dynamodb.endpoint,
      tableName: tableNames[outbox.table],
      handler: relay.handler,
      functionName: 'outbox',
      filterAttribute: outbox.eventAttribute,
      batchSize: outbox.batchSize,
      retryAttempts: outbox.retryAttempts,
      // One line per step a deposit takes, whoever wrote it (`activity.ts`).
      observe: transitionsSayer(),
    });
    stops.push(() => stream.stop());

    const sweep = {
      handler: await loadHandler<(event: object, context: Context) => Promise<unknown>>(sweeper.handler),
    };
    const timer = setInterval(
      () => {
        // Its own timeout, as in AWS: a run stops taking deposits by the time it has left.
        const context = lambdaContext('sweeper', sweeper.timeoutSeconds * 1000);
        void inInvocation(context, () => withOwnLogger('deposits', () => sweep.handler({}, context))).catch(
          (error: unknown) => {
            process.stderr.write(`local sweeper: ${String(error)}\n`);
          },
        );
      },
      options.sweepIntervalMs ?? sweeper.everyMinutes * 60_000,
    );
    stops.push(async () => clearInterval(timer));

    return {
      sandboxUrl: sandbox.url,
      depositsUrl: deposits.url,
      operatorUrl: operator.url,
      operatorToken,
      secondOperatorToken,
      dynamodbEndpoint: dynamodb.endpoint,
      tableNames,
      sqsEndpoint: sqs.endpoint,
      schedulerEndpoint: scheduler.endpoint,
      queueUrls: Object.fromEntries(
        Object.entries(sqs.byKey).map(([key, queue]) => [key, { url: queue.url, dlqUrl: queue.dlqUrl }]),
      ),
      async restartWorkers({ pauseMs = 0 } = {}) {
        await Promise.all([
          workers?.kill(pauseMs),
          (async () => {
            await sqs.stopPollers();
            if (pauseMs > 0) await new Promise((done) => setTimeout(done, pauseMs));
            await sqs.startPollers(pollers);
          })(),
        ]);
      },
      stepWorkerKills: () => workers?.kills(),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
