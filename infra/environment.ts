/**
 * The variables through which the handlers find the topology's resources, from where a stack keeps
 * them: written once, for the local stack (`infra/local/stack.ts`) and for AWS
 * (`infra/stacks/deposits-stateless-stack.ts`). Which of them a function is given follows from its
 * line (`infra/cdk/environment.ts`).
 */
import {
  outbox,
  queues,
  scheduleGroup,
  tables,
  watchedQueues,
  watchedQueuesVariable,
} from '#shared/topology';

type QueueKey = keyof typeof queues;

/** Where a stack keeps the topology's resources. */
export interface StackResources {
  /** The names of the tables it has. */
  tables: Partial<Record<keyof typeof tables, string>>;
  queue: (key: QueueKey) => { url: string; arn: string; dlqUrl: string };
  scheduleGroup: string;
  schedulerRoleArn: string;
  schedulerDlqArn: string;
  /** Whether it notifies a webhook: without one no events are queued, and no handler gets the queue. */
  notifies: boolean;
  /** A value as JSON (in AWS, one that may hold tokens). */
  json: (value: unknown) => string;
}

export function resourceVariables(stack: StackResources): Record<string, string> {
  const queueKeys = (Object.keys(queues) as QueueKey[]).filter((key) => key !== 'notify' || stack.notifies);
  return {
    ...Object.fromEntries(
      Object.entries(stack.tables).map(([key, name]) => [tables[key as keyof typeof tables].envVar, name]),
    ),
    ...Object.fromEntries(
      queueKeys.flatMap((key) => {
        const spec: (typeof queues)[QueueKey] = queues[key];
        const { url, arn } = stack.queue(key);
        return [[spec.urlEnvVar, url], ...('arnEnvVar' in spec ? [[spec.arnEnvVar, arn]] : [])];
      }),
    ),
    // The outbox relay's DLQ, where it sets aside what it could not relay.
    [outbox.dlqUrlEnvVar]: stack.queue(outbox.queue).dlqUrl,
    // Every queue's URL and its DLQ's: what the operator's queues handler reads the depths of.
    [watchedQueuesVariable]: stack.json(watchedQueues((key) => stack.queue(key))),
    [scheduleGroup.envVar]: stack.scheduleGroup,
    SCHEDULER_ROLE_ARN: stack.schedulerRoleArn,
    SCHEDULER_DLQ_ARN: stack.schedulerDlqArn,
  };
}
