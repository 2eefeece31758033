/** An alarm that tells the alarm topic when it fires and when it clears. */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

export interface NotifyingAlarmProps {
  topic: sns.ITopic;
  alarmName: string;
  /** What it means and what to do: the runbook's alarm table (docs/operating.md) says the same. */
  description: string;
  metric: cloudwatch.IMetric;
  threshold: number;
  evaluationPeriods?: number;
}

export function notifyingAlarm(scope: Construct, id: string, props: NotifyingAlarmProps): cloudwatch.Alarm {
  const alarm = new cloudwatch.Alarm(scope, id, {
    alarmName: props.alarmName,
    alarmDescription: props.description,
    metric: props.metric,
    threshold: props.threshold,
    evaluationPeriods: props.evaluationPeriods ?? 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  alarm.addAlarmAction(new actions.SnsAction(props.topic));
  alarm.addOkAction(new actions.SnsAction(props.topic));
  return alarm;
}
