/**
 * The deposits' alarms and dashboard:
 *   - every DLQ (the step queues', the notify queue's, the outbox relay's and its stream's, the scheduler's) holding a message;
 *   - every queue's oldest message older than its threshold (settings.ts);
 *   - deposits stuck past their expected time: the sweeper re-drove some in each of 3 periods;
 *   - function errors and API 5xx come with their functions and the API.
 * The dashboard shows deposits by status and by step (the workflow's `DepositTransitions` metric),
 * the queues, the functions, the sweeper's re-drives and the recent errors in the logs.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DepositStatus, DepositStep } from '#shared/deposits/model/deposit';
import { observability, type QueueKey, queueAlarms } from '../cdk/settings.ts';
import type { DepositsStatefulStack } from '../stacks/deposits-stateful-stack.ts';
import { notifyingAlarm } from './alarms.ts';
import type { HandlerFunction } from './handler-function.ts';
import type { TopologyApi } from './topology-api.ts';

export interface DepositsMonitoringProps {
  prefix: string;
  stateful: DepositsStatefulStack;
  functions: HandlerFunction[];
  sweeper: HandlerFunction;
  api: TopologyApi;
  /** Each queue's consumer, by name (for the alarms' descriptions). */
  consumers: Record<QueueKey, string>;
}

/** What the sweeper logs when it re-drives deposits (functions/steps/sweeper.ts). */
export const sweeperRedriveMessage = 're-drove stalled deposits';
export const stalledMetricName = 'StalledDepositsRedriven';

const period = Duration.minutes(5);

export class DepositsMonitoring extends Construct {
  readonly dashboard: cloudwatch.Dashboard;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: DepositsMonitoringProps) {
    super(scope, id);
    const { stateful, prefix } = props;
    const topic = stateful.alarmTopic;
    const queueEntries = Object.entries(stateful.queues) as [
      QueueKey,
      DepositsStatefulStack['queues'][QueueKey],
    ][];

    const deadLetterQueues: [string, sqs.IQueue, string][] = [
      ...queueEntries.map(([key, stepQueue]): [string, sqs.IQueue, string] => [
        key,
        stepQueue.deadLetterQueue,
        key === 'outboxRelay'
          ? 'Deposit events the outbox relay could not send to the notify queue after its tries (or that a redrive could not relay again): their callers were not told. Each message holds the whole record (the event, deposit id, version). Read the relay function’s errors, fix the cause, then redrive the DLQ to the outbox-relay queue (docs/operating.md).'
          : `Messages of the ${key} queue that ${props.consumers[key]} failed on every try. For a step, a deposit stopped there until the sweeper re-drives it; for notify, a webhook event was never delivered. Read the function's errors, fix the cause, then redrive the DLQ (docs/operating.md).`,
      ]),
      [
        'outbox',
        stateful.outboxDeadLetterQueue,
        'Stream positions of records the outbox relay could neither relay nor set aside in its own DLQ, after the stream’s retries (the last resort): their callers were not told, and the stream keeps the records only 24 hours. Each message names the shard and sequence numbers; read those records from the stream at once and queue their events (docs/operating.md).',
      ],
      [
        'scheduler',
        stateful.schedulerDeadLetterQueue,
        'A wake-up schedule could not send its message to the transfer queue (role, queue or quota). The sweeper re-drives the deposit once it is due; read the message for the error, fix it, then purge the queue.',
      ],
    ];
    for (const [key, queue, description] of deadLetterQueues) {
      this.alarms.push(
        notifyingAlarm(this, `${key}DeadLetterAlarm`, {
          topic,
          alarmName: `${prefix}-${kebab(key)}-dlq-not-empty`,
          description,
          metric: queue.metricApproximateNumberOfMessagesVisible({
            period: Duration.minutes(1),
            statistic: 'Maximum',
          }),
          threshold: 1,
        }),
      );
    }

    for (const [key, stepQueue] of queueEntries) {
      const seconds = queueAlarms[key].oldestMessageSeconds;
      this.alarms.push(
        notifyingAlarm(this, `${key}OldestMessageAlarm`, {
          topic,
          alarmName: `${prefix}-${kebab(key)}-oldest-message`,
          description: `The oldest message of the ${key} queue is over ${seconds / 60} minutes old: ${props.consumers[key]} is not keeping up (throttled, failing, or held to its maximum concurrency by a slow provider). Deposits are late; read the function's errors and duration.`,
          metric: stepQueue.queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
          threshold: seconds,
        }),
      );
    }

    // Deposits past their check time are what the sweeper re-drives; it logs how many.
    const stalled = new logs.MetricFilter(this, 'StalledDepositsFilter', {
      logGroup: props.sweeper.logGroup,
      filterPattern: logs.FilterPattern.stringValue('$.message', '=', sweeperRedriveMessage),
      metricNamespace: observability.namespace,
      metricName: stalledMetricName,
      metricValue: '$.redriven',
    });
    const stalledMetric = stalled.metric({ period, statistic: 'Sum' });
    this.alarms.push(
      notifyingAlarm(this, 'StalledDepositsAlarm', {
        topic,
        alarmName: `${prefix}-deposits-stuck`,
        description:
          'The sweeper found deposits past their expected time (their step, cool-down or question overdue by STALL_AFTER_SECONDS) in each of the last 15 minutes: re-driving them does not move them. Look up the stalled deposits in the sweeper logs and the step functions’ errors.',
        metric: stalledMetric,
        threshold: 1,
        evaluationPeriods: 3,
      }),
    );

    const transitions = (filter: string, label: string) =>
      new cloudwatch.MathExpression({
        expression: `SUM(SEARCH('{${observability.namespace},service,status,step} MetricName="DepositTransitions" ${filter}', 'Sum', 300))`,
        label,
        period,
      });
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `${prefix}-deposits`,
      defaultInterval: Duration.hours(6),
    });
    const wide = { width: 12, height: 6 };
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        ...wide,
        title: 'Deposits by status (transitions into it, per 5 minutes)',
        left: DepositStatus.options.map((status) => transitions(`status="${status}"`, status)),
      }),
      new cloudwatch.GraphWidget({
        ...wide,
        title: 'Deposits by step (transitions into it, per 5 minutes)',
        left: DepositStep.options.map((step) => transitions(`step="${step}"`, step)),
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        ...wide,
        title: 'Deposits by status and step',
        left: [
          new cloudwatch.MathExpression({
            expression: `SEARCH('{${observability.namespace},service,status,step} MetricName="DepositTransitions"', 'Sum', 300)`,
            label: '',
            period,
          }),
        ],
      }),
      new cloudwatch.GraphWidget({
        ...wide,
        title: 'Stuck deposits re-driven by the sweeper',
        left: [stalledMetric],
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        ...wide,
        title: 'Messages waiting, by queue',
        left: queueEntries.map(([key, stepQueue]) =>
          stepQueue.queue.metricApproximateNumberOfMessagesVisible({
            period,
            statistic: 'Maximum',
            label: key,
          }),
        ),
      }),
      new cloudwatch.GraphWidget({
        ...wide,
        title: 'Age of the oldest message (seconds), by queue',
        left: queueEntries.map(([key, stepQueue]) =>
          stepQueue.queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum', label: key }),
        ),
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        ...wide,
        title: 'Dead-letter queues',
        left: deadLetterQueues.map(([key, queue]) =>
          queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label: key }),
        ),
      }),
      new cloudwatch.GraphWidget({
        ...wide,
        title: 'Deposits API',
        left: [
          props.api.api.metricCount({ period, statistic: 'Sum', label: 'requests' }),
          props.api.api.metricClientError({ period, statistic: 'Sum', label: '4xx' }),
          props.api.api.metricServerError({ period, statistic: 'Sum', label: '5xx' }),
        ],
        right: [props.api.api.metricLatency({ period, statistic: 'p99', label: 'latency p99 (ms)' })],
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        ...wide,
        title: 'Function errors',
        left: props.functions.map((handler) =>
          handler.function.metricErrors({ period, statistic: 'Sum', label: handler.settings.name }),
        ),
      }),
      new cloudwatch.GraphWidget({
        ...wide,
        title: 'Function duration p99 (ms)',
        left: props.functions.map((handler) =>
          handler.function.metricDuration({ period, statistic: 'p99', label: handler.settings.name }),
        ),
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.LogQueryWidget({
        width: 24,
        height: 6,
        title: 'Recent errors and warnings (structured logs)',
        logGroupNames: props.functions.map((handler) => handler.logGroup.logGroupName),
        queryLines: [
          'fields @timestamp, function_name, level, message, error.message',
          'filter level = "ERROR" or level = "WARN"',
          'sort @timestamp desc',
          'limit 50',
        ],
      }),
    );
    this.dashboard = dashboard;
  }
}

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}
