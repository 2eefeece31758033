/**
 * The stacks' alarms and dashboard, and cdk-nag's AwsSolutions rules with nothing unsuppressed.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { stalledMetricName, sweeperRedriveMessage } from '#infra/constructs/deposits-monitoring';
import { handlerFile, queues, sweeper } from '#shared/topology';
import { dev, prod, queueId, synthesizeBoth } from './stacks-world.ts';
import { functionsByHandler, nagFindings, resourcesOf, type Synthesized, text } from './synth.ts';

beforeAll(synthesizeBoth);

describe('alarms and the dashboard', () => {
  type Alarm = { Properties: Record<string, unknown> };
  const alarms = (synthesized: Synthesized) =>
    [synthesized.templates.stateless, synthesized.templates.sandbox]
      .filter((template) => template !== undefined)
      .flatMap((template) => resourcesOf(template, 'AWS::CloudWatch::Alarm'))
      .map(([, alarm]) => alarm as Alarm);
  const on = (list: Alarm[], metric: string) =>
    list.filter((alarm) => alarm.Properties.MetricName === metric);

  it('watch every DLQ, the scheduler’s and the outbox relay’s included', () => {
    const dlqAlarms = on(alarms(dev), 'ApproximateNumberOfMessagesVisible');
    const watched = dlqAlarms.map((alarm) => text(alarm.Properties.Dimensions));

    expect(dlqAlarms).toHaveLength(Object.keys(queues).length + 2);
    for (const key of Object.keys(queues)) {
      expect(
        watched.filter((dimensions) => dimensions.includes(queueId(key, 'DeadLetterQueue'))),
        key,
      ).toHaveLength(1);
    }
    expect(watched.filter((dimensions) => dimensions.includes('SchedulerDeadLetterQueue'))).toHaveLength(1);
    expect(watched.filter((dimensions) => dimensions.includes('OutboxDeadLetterQueue'))).toHaveLength(1);
    for (const alarm of dlqAlarms) expect(alarm.Properties).toMatchObject({ Threshold: 1 });
  });

  it('watch the age of the oldest message of every queue', () => {
    const ageAlarms = on(alarms(dev), 'ApproximateAgeOfOldestMessage');
    expect(ageAlarms).toHaveLength(Object.keys(queues).length);
    for (const key of Object.keys(queues)) {
      expect(
        ageAlarms.filter((alarm) => text(alarm.Properties.Dimensions).includes(queueId(key, 'Queue'))),
        key,
      ).toHaveLength(1);
    }
  });

  it('watch every function’s errors', () => {
    const errorAlarms = on(alarms(dev), 'Errors');
    const functionIds = [dev.templates.stateless, dev.templates.sandbox].flatMap((template) =>
      [...functionsByHandler(template ?? expect.fail('no template')).values()].map(({ id }) => id),
    );

    expect(errorAlarms).toHaveLength(functionIds.length);
    for (const id of functionIds) {
      expect(
        errorAlarms.filter((alarm) => text(alarm.Properties.Dimensions).includes(id)),
        id,
      ).toHaveLength(1);
    }
  });

  it('watch deposits stuck past their expected time, from the sweeper’s own log line', () => {
    const sweeperSource = readFileSync(
      resolve(import.meta.dirname, '../..', handlerFile(sweeper.handler)),
      'utf8',
    );
    expect(sweeperSource).toContain(`'${sweeperRedriveMessage}', { redriven }`);

    const stuck = on(alarms(dev), stalledMetricName);
    expect(stuck).toEqual([
      expect.objectContaining({ Properties: expect.objectContaining({ EvaluationPeriods: 3 }) }),
    ]);
    dev.templates.stateless.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: `{ $.message = "${sweeperRedriveMessage}" }`,
      MetricTransformations: [Match.objectLike({ MetricName: stalledMetricName, MetricValue: '$.redriven' })],
    });
  });

  it('all tell the alarm topic when they fire and when they clear', () => {
    for (const alarm of [...alarms(dev), ...alarms(prod)]) {
      expect(text(alarm.Properties.AlarmActions)).toMatch(/AlarmTopic/);
      expect(text(alarm.Properties.OKActions)).toMatch(/AlarmTopic/);
    }
    prod.templates.stateful.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
    });
  });

  it('have a dashboard of deposits by status and step, queues and functions', () => {
    const [, dashboard] =
      resourcesOf(dev.templates.stateless, 'AWS::CloudWatch::Dashboard')[0] ?? expect.fail('no dashboard');
    const body = text(dashboard.Properties?.DashboardBody);
    for (const expected of [
      'DepositTransitions',
      'status=\\\\\\"done\\\\\\"',
      'step=\\\\\\"transfer\\\\\\"',
      'ApproximateAgeOfOldestMessage',
      stalledMetricName,
    ]) {
      expect(body).toContain(expected);
    }
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('leaves no finding unsuppressed', () => {
    expect(nagFindings(dev.deployment)).toEqual([]);
    expect(nagFindings(prod.deployment)).toEqual([]);
  });
});
