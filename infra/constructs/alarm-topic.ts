/**
 * The alarm topic every stack reports to: encrypted with a key of its own, TLS only. Two services
 * publish to it: CloudWatch, for this deployment's alarms (every alarm name starts with the
 * deployment's prefix), and EventBridge, for this deployment's rules on CloudTrail events
 * (`credentials-watch.ts`; their names start with the prefix too). The key trusts CloudWatch only on
 * behalf of those alarms (`aws:SourceAccount`, `aws:SourceArn`), and the topic takes CloudWatch's and
 * EventBridge's messages only from those alarms and rules. The key lets EventBridge use it with no such condition: the
 * requests EventBridge makes to KMS for an encrypted topic carry no source keys (AWS's SNS guide
 * gives the statement bare), and what it may publish is the topic policy's to say.
 */
import { ArnFormat, Duration, RemovalPolicy, type Stack } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';

export interface AlarmTopicProps {
  /** The deployment's prefix: of every alarm's name and every rule's. */
  prefix: string;
  alarmEmail?: string;
}

/** The ARN pattern of this deployment's alarms, or of its EventBridge rules. */
export function deploymentArns(stack: Stack, prefix: string, of: 'alarms' | 'rules'): string {
  return of === 'alarms'
    ? stack.formatArn({
        service: 'cloudwatch',
        resource: 'alarm',
        resourceName: `${prefix}-*`,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      })
    : stack.formatArn({ service: 'events', resource: 'rule', resourceName: `${prefix}-*` });
}

/**
 * Adds the alarm topic and its key to `stack`, under the ids they have always had (a new logical id
 * would replace the topic, and every e-mail subscription would have to be confirmed again).
 */
export function addAlarmTopic(stack: Stack, props: AlarmTopicProps): sns.Topic {
  const { account } = stack;
  const key = new kms.Key(stack, 'AlarmTopicKey', {
    description: 'Encrypts the alarm topic; this deployment’s alarms and rules may use it to publish',
    enableKeyRotation: true,
    removalPolicy: RemovalPolicy.DESTROY,
    pendingWindow: Duration.days(7),
  });
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'UsedByThisDeploymentsAlarmsOnly',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
      conditions: {
        StringEquals: { 'aws:SourceAccount': account },
        ArnLike: { 'aws:SourceArn': deploymentArns(stack, props.prefix, 'alarms') },
      },
    }),
  );
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'UsedByEventBridgeForThisTopic',
      principals: [new iam.ServicePrincipal('events.amazonaws.com')],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
    }),
  );
  const topic = new sns.Topic(stack, 'AlarmTopic', {
    displayName: `${props.prefix} alarms`,
    masterKey: key,
    enforceSSL: true,
  });
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'PublishedByThisDeploymentsAlarmsOnly',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': account },
        ArnLike: { 'aws:SourceArn': deploymentArns(stack, props.prefix, 'alarms') },
      },
    }),
  );
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'PublishedByThisDeploymentsRulesOnly',
      principals: [new iam.ServicePrincipal('events.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': account },
        ArnLike: { 'aws:SourceArn': deploymentArns(stack, props.prefix, 'rules') },
      },
    }),
  );
  if (props.alarmEmail) topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
  return topic;
}

/**
 * A rule's target that publishes `message` to the alarm topic, with no grant of its own: the topic
 * already takes this deployment's rules (`PublishedByThisDeploymentsRulesOnly`), where the SNS
 * target of `aws-events-targets` would let EventBridge publish for any rule.
 */
export function toTheAlarmTopic(topic: sns.ITopic, message: events.RuleTargetInput): events.IRuleTarget {
  return { bind: () => ({ arn: topic.topicArn, input: message }) };
}
