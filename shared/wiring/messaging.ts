/**
 * The orchestrator's messages: the step queues and the wake-up scheduler, each limited to what the
 * handler reaches (`shared/deposits/reach.ts`: its URLs and ARNs, and in AWS its grants), the
 * queue of the caller's events, and the outbox relay's DLQ.
 */
import { schedulerClient, sqsClient } from '#shared/adapters/clients';
import { NotificationQueue } from '#shared/adapters/notification-queue';
import { OutboxRelayDlq } from '#shared/adapters/outbox-relay-dlq';
import { SqsQueueDepths } from '#shared/adapters/queue-depths';
import { EventBridgeWakeCancels, EventBridgeWakeScheduler } from '#shared/adapters/scheduler';
import { SqsStepQueues } from '#shared/adapters/step-queues';
import {
  notifyConfig,
  operatorConfig,
  outboxConfig,
  scheduleGroupConfig,
  schedulerConfig,
  stepQueueArns,
  stepQueueUrls,
} from '#shared/config';
import type { WorkStep } from '#shared/deposits/model/deposit';
import { type ReachName, reach, type SendsOf, type WakesOf } from '#shared/deposits/reach';

/** The step queues handler `name` sends to, and no other. */
export function queuesOf<H extends ReachName>(name: H) {
  return new SqsStepQueues<SendsOf<H>>(
    sqsClient(),
    stepQueueUrls(reach[name].sends as readonly SendsOf<H>[]),
  );
}

/** The scheduler, targeting the queues handler `name` wakes, and no other. */
export function schedulerOf<H extends ReachName>(name: H) {
  const config = schedulerConfig();
  const steps = reach[name].wakes as readonly WorkStep[] as readonly WakesOf<H>[];
  return new EventBridgeWakeScheduler<WakesOf<H>>(schedulerClient(), {
    groupName: scheduleGroupConfig().SCHEDULE_GROUP_NAME,
    queueArns: stepQueueArns(steps),
    roleArn: config.SCHEDULER_ROLE_ARN,
    deadLetterArn: config.SCHEDULER_DLQ_ARN,
  });
}

/** Deletes wake-up schedules of the service's group (a cancelled deposit's). */
export function scheduleCancels() {
  return new EventBridgeWakeCancels(schedulerClient(), scheduleGroupConfig().SCHEDULE_GROUP_NAME);
}

/** The notify queue: the caller's events on their way to its webhook. */
export function depositEvents() {
  return new NotificationQueue(sqsClient(), notifyConfig().NOTIFY_QUEUE_URL);
}

/** The outbox relay's DLQ: the versions whose events it could not relay, each whole. */
export function unrelayedEvents() {
  return new OutboxRelayDlq(sqsClient(), outboxConfig().OUTBOX_RELAY_DLQ_URL);
}

/** The depths of every queue of the service and its DLQ (the operator's view). */
export function queueDepths() {
  return new SqsQueueDepths(sqsClient(), operatorConfig().OPERATOR_QUEUES);
}
