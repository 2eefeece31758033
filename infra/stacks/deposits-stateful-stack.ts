/**
 * What the deposits keep: the deposits table and its key, the key that seals callers' credentials
 * (and the rule that reports any reach for it other than a step's), the owner key
 * (the secret a caller's deposits are keyed by), the webhook signing secret, the step queues and
 * their DLQs (deposits in flight), and the schedule group with the role and DLQ its pending wake-ups
 * use. Plus the alarm topic every stack reports to. Apart from the functions, so that redeploying or
 * removing those never touches a deposit.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { wakeTargets } from '#shared/deposits/reach';
import { queues, stepQueueKeys, tables } from '#shared/topology';
import type { DeploymentConfig } from '../cdk/config.ts';
import { credentialsKeyPolicy } from '../cdk/credentials.ts';
import { keyAdministrator, tableKeyPolicy } from '../cdk/key-admin.ts';
import { suppress } from '../cdk/nag.ts';
import { pascal, type QueueKey, settingsOf, visibilityTimeoutFactor } from '../cdk/settings.ts';
import { addAlarmTopic } from '../constructs/alarm-topic.ts';
import { watchTheCredentialsKey } from '../constructs/credentials-watch.ts';
import { dlqRetention, StepQueue } from '../constructs/step-queue.ts';
import { topologyTable } from '../constructs/topology-table.ts';
import { TraceSampling } from '../constructs/trace-sampling.ts';

export interface DepositsStatefulStackProps extends StackProps {
  config: DeploymentConfig;
}

export class DepositsStatefulStack extends Stack {
  readonly depositsTable: dynamodb.Table;
  /** Encrypts the deposits table, its indexes, its stream and its backups. */
  readonly tableKey: kms.Key;
  readonly credentialsKey: kms.Key;
  /** The ARN of the role that administers both keys (CDK context `keyAdminRole`). */
  readonly keyAdminRoleArn: string;
  readonly webhookSecret: secretsmanager.Secret;
  /** The key of the keyed digests (HMAC) a caller's deposits, leases and claims are keyed by. */
  readonly ownerKeySecret: secretsmanager.Secret;
  readonly queues: Record<QueueKey, StepQueue>;
  readonly scheduleGroup: scheduler.ScheduleGroup;
  readonly schedulerRole: iam.Role;
  readonly schedulerDeadLetterQueue: sqs.Queue;
  /**
   * The positions of stream records the outbox relay could neither relay nor set aside in its own DLQ
   * (the `outboxRelay` queue's), after the stream's retries: its event source mapping's last resort.
   */
  readonly outboxDeadLetterQueue: sqs.Queue;
  readonly alarmTopic: sns.Topic;

  constructor(scope: Construct, id: string, props: DepositsStatefulStackProps) {
    super(scope, id, props);
    const { config } = props;
    const production = config.stage === 'prod';
    const removalPolicy = production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.keyAdminRoleArn = keyAdministrator(this, config.keyAdminRole);
    new TraceSampling(this, 'TraceSampling', { prefix: config.prefix, fixedRate: config.traceSampleRate });
    this.tableKey = new kms.Key(this, 'DepositsTableKey', {
      description: 'Encrypts the deposits table, its indexes, stream and backups (through DynamoDB only)',
      enableKeyRotation: true,
      policy: tableKeyPolicy(this, this.keyAdminRoleArn),
      removalPolicy,
      pendingWindow: Duration.days(production ? 30 : 7),
    });
    this.depositsTable = topologyTable(this, 'DepositsTable', tables.deposits, config.stage, this.tableKey);

    this.credentialsKey = new kms.Key(this, 'CredentialsKey', {
      description: 'Makes the data keys that seal callers’ credentials and answers while their deposit runs',
      enableKeyRotation: true,
      // Only the functions that seal or open credentials use it (`infra/cdk/credentials.ts`).
      policy: credentialsKeyPolicy(this, config.prefix, this.keyAdminRoleArn),
      removalPolicy,
      pendingWindow: Duration.days(production ? 30 : 7),
    });

    // 36 random bytes as base64 (48 characters of [A-Za-z0-9] are valid base64): a Standard
    // Webhooks secret without its `whsec_` prefix, which the signer accepts either way.
    this.webhookSecret = new secretsmanager.Secret(this, 'WebhookSigningSecret', {
      description: 'Standard Webhooks signing secret of the deposit events (whsec_ + this value)',
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
      removalPolicy,
    });
    suppress(this.webhookSecret, ['webhookSecretRotation']);

    // 64 random characters of [A-Za-z0-9], read as base64: a 48-byte HMAC key (about 380 bits).
    // Only the routes that take a caller's token read it; it stays with the deposits it keys.
    this.ownerKeySecret = new secretsmanager.Secret(this, 'OwnerKeySecret', {
      description:
        'The key of the keyed digests (HMAC-SHA256) of callers’ access tokens and user secrets that deposits, leases and claims are keyed by',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy,
    });
    suppress(this.ownerKeySecret, ['ownerKeyRotation']);

    this.queues = Object.fromEntries(
      (Object.entries(queues) as [QueueKey, (typeof queues)[QueueKey]][]).map(([key, spec]) => [
        key,
        new StepQueue(this, `${pascal(key)}Queue`, {
          spec,
          prefix: config.prefix,
          visibilityTimeout: Duration.seconds(
            visibilityTimeoutFactor * settingsOf(spec.handler).timeoutSeconds,
          ),
          removalPolicy,
        }),
      ]),
    ) as Record<QueueKey, StepQueue>;

    this.scheduleGroup = new scheduler.ScheduleGroup(this, 'ScheduleGroup', { removalPolicy });
    this.schedulerDeadLetterQueue = new sqs.Queue(this, 'SchedulerDeadLetterQueue', {
      queueName: `${config.prefix}-scheduler-dlq`,
      retentionPeriod: dlqRetention,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy,
    });
    suppress(this.schedulerDeadLetterQueue, ['schedulerDeadLetterQueue']);
    this.outboxDeadLetterQueue = new sqs.Queue(this, 'OutboxDeadLetterQueue', {
      queueName: `${config.prefix}-outbox-dlq`,
      retentionPeriod: dlqRetention,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy,
    });
    suppress(this.outboxDeadLetterQueue, ['outboxDeadLetterQueue']);

    // The scheduler assumes this role, for this account's group only, to deliver a wake-up to the
    // queue of the step it wakes, or what it could not deliver to its DLQ (sent with the same role).
    this.schedulerRole = new iam.Role(this, 'SchedulerRole', {
      description:
        'EventBridge Scheduler: wake-ups to the queues of the steps they wake, failures to its DLQ',
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': this.account },
          ArnEquals: { 'aws:SourceArn': this.scheduleGroup.scheduleGroupArn },
        },
      }),
      inlinePolicies: {
        SendWakeUps: new iam.PolicyDocument({
          statements: [
            new iam.PolicyStatement({
              actions: ['sqs:SendMessage'],
              resources: [
                ...wakeTargets.map((step) => this.queues[stepQueueKeys[step]].queue.queueArn),
                this.schedulerDeadLetterQueue.queueArn,
              ],
            }),
          ],
        }),
      },
    });

    this.alarmTopic = addAlarmTopic(this, {
      prefix: config.prefix,
      ...(config.alarmEmail ? { alarmEmail: config.alarmEmail } : {}),
    });
    watchTheCredentialsKey(this, 'CredentialsKeyCalls', {
      prefix: config.prefix,
      key: this.credentialsKey,
      topic: this.alarmTopic,
    });

    const output = (name: string, value: string, description: string) =>
      new CfnOutput(this, name, { value, description });
    output('DepositsTableName', this.depositsTable.tableName, 'The deposits table');
    output(
      'WebhookSecretArn',
      this.webhookSecret.secretArn,
      'The webhook signing secret (whsec_ + its value)',
    );
    output(
      'OwnerKeySecretArn',
      this.ownerKeySecret.secretArn,
      'The owner key: rotating it orphans every deposit in flight (docs/deploying.md, "The owner key")',
    );
    output('AlarmTopicArn', this.alarmTopic.topicArn, 'Subscribe here to hear of every alarm');
    output('ScheduleGroupName', this.scheduleGroup.scheduleGroupName, 'The wake-up schedules of deposits');
    // ARNs: what `aws sqs start-message-move-task --source-arn` takes to redrive a DLQ.
    for (const [key, stepQueue] of Object.entries(this.queues)) {
      output(
        `${pascal(key)}DeadLetterQueueArn`,
        stepQueue.deadLetterQueue.queueArn,
        `DLQ of the ${key} queue`,
      );
    }
    // The outbox relay's DLQ is redriven there (its messages never came from it: the move names it).
    output(
      'OutboxRelayQueueArn',
      this.queues.outboxRelay.queue.queueArn,
      'Redrive the outbox relay DLQ to this queue (--destination-arn): its consumer relays the events again',
    );
    output(
      'SchedulerDeadLetterQueueArn',
      this.schedulerDeadLetterQueue.queueArn,
      'Wake-ups the scheduler could not deliver',
    );
  }
}
