/**
 * The step workers' process, for the local stack only (`step-workers.ts` starts it): the pollers of
 * the step queues, with the handlers Lambda runs, in a process of their own that a test can kill. Its
 * parent hands it the queues, the crash rules armed so far and the local clock's shift, then each
 * rule armed and each move of the clock. It tells its parent through a journal file, written
 * synchronously so that it survives a SIGKILL (every process holds every rule; each firing is claimed
 * by one): the rules used up, the transfer attempts opened and
 * closed, the transfer answers lost, and, at an armed crash point, the death it is about to die. It
 * then asks its parent to kill it and stops dead (nothing more runs), or kills itself if no one does.
 * The DynamoDB faults' rules (`dynamodb-faults.ts`) come and go back the same way.
 *
 * Its parent runs it as one bundle (esbuild), not through tsx: a killed process's replacement starts
 * cold, dozens of times a chaos run, and the bundle loads in a fraction of the CPU. So the step
 * handlers are imported by name here, where the bundle can hold them, and each handler's module is
 * one instance in the process, its pollers' environments sharing it (as, through tsx, they already
 * shared every module below the handler's).
 */
import './xray-manual-mode.ts';

import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { handlerFile, queues, type stepQueueKeys } from '#shared/topology';
import { installLocalClock, localClock } from './clock.ts';
import {
  type CrashPoint,
  type CrashRule,
  type Death,
  dropRules,
  holdCrashPoints,
  holdRule,
  onAttempt,
} from './crash-points.ts';
import { installCrashPoints } from './crash-wrappers.ts';
import { localCredentials } from './credentials.ts';
import { installDynamoDbFaults } from './dynamodb-fault-middleware.ts';
import {
  type DynamoDbFaultKind,
  type DynamoDbFaultRule,
  dropDynamoDbFaultRules,
  type FaultInAttempt,
  holdDynamoDbFaultRule,
  holdDynamoDbFaults,
} from './dynamodb-faults.ts';
import { type HandlerLoader, type LocalHandler, useHandlers } from './handlers.ts';
import { startPollers } from './pollers.ts';
import { installLocalTraces } from './traces.ts';

/** What the parent sends: first `start`, then rules and clock moves. */
export type ToWorkers =
  | {
      type: 'start';
      sqsEndpoint: string;
      queues: { key: keyof typeof queues; name: string; url: string; arn: string }[];
      /** Pollers per queue at the start and while it is empty (`pollers.ts`). */
      concurrency: number;
      /** This process among the step workers': it polls with its share of each queue's maximum. */
      share: { index: number; of: number };
      environment: string;
      rules: CrashRule[];
      dynamoDbFaults: DynamoDbFaultRule[];
      clockShiftMs: number;
    }
  | { type: 'arm'; rule: CrashRule }
  | { type: 'clear' }
  | { type: 'arm-dynamodb'; rule: DynamoDbFaultRule }
  | { type: 'clear-dynamodb' }
  | { type: 'clock'; shiftMs: number };

/** A line of the journal. */
export type JournalLine =
  | { kind: 'fired'; ruleId: number; point: CrashPoint }
  | { kind: 'attempt'; depositId: string; open: boolean }
  | { kind: 'lost-answer'; ownerKey: string; depositId?: string | undefined; reason: string; at: number }
  | { kind: 'death'; death: Death }
  | { kind: 'dynamodb-fired'; ruleId: number; faultKind: DynamoDbFaultKind }
  | { kind: 'dynamodb-in-attempt'; fault: FaultInAttempt };

const journal = process.env.STEP_WORKERS_JOURNAL;
const firings = process.env.STEP_WORKERS_FIRINGS;
if (!journal || !firings || !process.send)
  throw new Error('the step workers run only as the local stack’s child process');
const firingsFolder = firings;
const write = (line: JournalLine) => appendFileSync(journal, `${JSON.stringify(line)}\n`);

/**
 * Claims one firing of a rule every step workers' process holds: its n-th firing is a folder, made
 * by one process only (`mkdir` is atomic), so a rule goes off as often as it was armed, in whichever
 * process reaches it first. False when every firing is taken.
 */
function claimFiring(folder: string, rule: { id: number; times: number }, prefix = ''): boolean {
  for (let firing = 1; firing <= rule.times; firing += 1) {
    try {
      mkdirSync(join(folder, `${prefix}${rule.id}.${firing}`));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return false;
}

/** Stops this process dead: no timer, no promise, no finally runs again; the parent's SIGKILL ends it. */
function freeze(): never {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5_000);
  // Nobody came: die all the same.
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
}

/** The step queues' handlers, by name: static imports, which the bundle holds. */
const stepHandlers = {
  'steps-resolve-bank': () => import('../../functions/steps/resolve-bank.ts'),
  'steps-ensure-beneficiary': () => import('../../functions/steps/ensure-beneficiary.ts'),
  'steps-wait-cooldown': () => import('../../functions/steps/wait-cooldown.ts'),
  'steps-transfer': () => import('../../functions/steps/transfer.ts'),
  'steps-reconcile': () => import('../../functions/steps/reconcile.ts'),
} satisfies Record<
  (typeof queues)[(typeof stepQueueKeys)[keyof typeof stepQueueKeys]]['handler'],
  () => Promise<{ handler: unknown }>
>;
const byFile = new Map(
  Object.entries(stepHandlers).map(([name, load]) => [handlerFile(name as keyof typeof stepHandlers), load]),
);
const loadStepHandler: HandlerLoader = async (modulePath) => {
  const load = byFile.get(modulePath);
  if (!load) throw new Error(`${modulePath} is no step queue's handler`);
  return (await load()).handler as LocalHandler;
};

useHandlers(loadStepHandler);
installLocalClock();
installCrashPoints();
installDynamoDbFaults();
installLocalTraces();

process.on('message', async (message: ToWorkers) => {
  switch (message.type) {
    case 'start': {
      localClock.advance(message.clockShiftMs);
      holdCrashPoints({
        rules: message.rules,
        die: async (death) => {
          write({ kind: 'death', death: { ...death, how: 'killed' } });
          process.send?.({ type: 'dying' });
          return freeze();
        },
        mayFire: (rule) => claimFiring(firingsFolder, rule),
        fired: (rule) => write({ kind: 'fired', ruleId: rule.id, point: rule.point }),
        lostAnswer: (lost) => write({ kind: 'lost-answer', ...lost }),
      });
      onAttempt((depositId, open) => write({ kind: 'attempt', depositId, open }));
      holdDynamoDbFaults({
        rules: message.dynamoDbFaults,
        // Numbered apart from the crash rules' firings, in the same folder.
        mayFire: (rule) => claimFiring(firingsFolder, rule, 'dynamodb-'),
        fired: (rule) => write({ kind: 'dynamodb-fired', ruleId: rule.id, faultKind: rule.kind }),
        inAttempt: (fault) => write({ kind: 'dynamodb-in-attempt', fault }),
      });
      const client = new SQSClient({
        endpoint: message.sqsEndpoint,
        region: 'us-east-1',
        credentials: localCredentials,
      });
      await startPollers(
        client,
        message.queues.map(({ key, ...queue }) => ({ spec: queues[key], ...queue })),
        { concurrency: message.concurrency, environment: message.environment, share: message.share },
      );
      process.send?.({ type: 'ready' });
      return;
    }
    case 'arm':
      return holdRule(message.rule);
    case 'clear':
      return dropRules();
    case 'arm-dynamodb':
      return holdDynamoDbFaultRule(message.rule);
    case 'clear-dynamodb':
      return dropDynamoDbFaultRules();
    case 'clock':
      return localClock.advance(Math.max(0, message.shiftMs - localClock.shift()));
  }
});
