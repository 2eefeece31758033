/**
 * One topology handler as a Lambda function: its bundle from the one esbuild run over every handler
 * (`function-bundles.ts`), Node 22 on ARM64, ESM with source maps; its own log group and its own
 * role, which may write that log group and nothing else until `grantAccess` adds what
 * `infra/cdk/settings.ts` says it uses; an alarm on its errors.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Stage } from '../cdk/context.ts';
import { credentialsRoleName, withTheVaultsContext } from '../cdk/credentials.ts';
import { suppress } from '../cdk/nag.ts';
import type { FunctionSettings, QueueKey, SecretKey, TableKey } from '../cdk/settings.ts';
import { notifyingAlarm } from './alarms.ts';
import { bundledCode } from './function-bundles.ts';

/**
 * The size target of a bundle's code (index.mjs, minified; the source map aside): a larger bundle
 * loads more slowly on every cold start. Met by the functions that call no AWS service (health,
 * not found, the bank catalog); docs/performance.md gives the others' cause and gap.
 */
export const bundleTargetBytes = 300 * 1024;

/**
 * The most code any bundle may have: what the trims reached (the largest, a step's, 610 KiB with
 * the AWS SDK, zod and the tracer's X-Ray SDK), with a twentieth to spare. `test/infra/app.test.ts`
 * measures every bundle against both.
 */
export const bundleBudgetBytes = 640 * 1024;

export interface HandlerFunctionProps {
  settings: FunctionSettings;
  stage: Stage;
  environment: Record<string, string>;
  alarmTopic: sns.ITopic;
  /** The deployment's prefix: of alarm names, and of the roles that seal or open credentials. */
  prefix: string;
  /** At most this many instances at once, always available to it (the API functions'). */
  reservedConcurrency?: number;
}

export class HandlerFunction extends Construct {
  readonly function: lambda.Function;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  readonly errorsAlarm: cloudwatch.Alarm;
  readonly settings: FunctionSettings;

  constructor(scope: Construct, id: string, props: HandlerFunctionProps) {
    super(scope, id);
    const { settings, stage } = props;
    this.settings = settings;
    const production = stage === 'prod';

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: production ? logs.RetentionDays.ONE_YEAR : logs.RetentionDays.TWO_WEEKS,
      removalPolicy: production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.role = new iam.Role(this, 'Role', {
      // Named when it seals or opens credentials: the key's policy allows only roles so named.
      ...(settings.credentialsKey
        ? { roleName: credentialsRoleName(props.prefix, settings.credentialsKey, settings.name) }
        : {}),
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${settings.file}: its own logs, and what infra/cdk/settings.ts grants it`,
    });
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    this.function = new lambda.Function(this, 'Function', {
      code: bundledCode(this, settings),
      handler: 'index.handler',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: settings.memoryMb,
      timeout: Duration.seconds(settings.timeoutSeconds),
      role: this.role,
      logGroup: this.logGroup,
      description: settings.file,
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      // X-Ray: each invocation a segment, sampled by the deployment's rule (`traceSampleRate`).
      tracing: lambda.Tracing.ACTIVE,
      ...(props.reservedConcurrency === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrency }),
    });

    suppress(this.role, ['xrayWrite'], ['Resource::*']);

    this.errorsAlarm = notifyingAlarm(this, 'ErrorsAlarm', {
      topic: props.alarmTopic,
      alarmName: `${props.prefix}-${settings.name}-errors`,
      description: `${settings.file} failed (threw, timed out or ran out of memory) at least once in 5 minutes. Its log group has the error. A consumer's whole batch comes back to its queue; an API caller got a 5xx.`,
      metric: this.function.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
    });
  }

  /** Grants exactly what the settings name; a setting without its resource is a mistake. */
  grantAccess(resources: AccessibleResources): void {
    const { settings } = this;
    const need = <T>(value: T | undefined, what: string): T => {
      if (value === undefined) throw new Error(`${settings.file} uses ${what}, which this stack lacks`);
      return value;
    };
    const allow = (statement: iam.PolicyStatementProps) =>
      this.role.addToPolicy(new iam.PolicyStatement(statement));

    if (settings.table) {
      const table = need(resources.tables?.[settings.table.key], `table ${settings.table.key}`);
      if (settings.partitions?.length) {
        // Each entity's actions on its own items only: by the prefix of their partition key.
        for (const { prefix, actions } of settings.partitions) {
          allow({
            actions: [...actions],
            resources: [table.tableArn],
            conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${prefix}*`] } },
          });
        }
      } else {
        allow({ actions: [...settings.table.actions], resources: [table.tableArn] });
      }
    }
    if (settings.index) {
      const table = need(resources.tables?.[settings.index.key], `table ${settings.index.key}`);
      allow({
        actions: ['dynamodb:Query'],
        resources: settings.index.names.map((name) => `${table.tableArn}/index/${name}`),
      });
    }
    if (settings.sendsTo.length > 0) {
      allow({
        actions: ['sqs:SendMessage'],
        resources: settings.sendsTo.map((key) => need(resources.queues?.[key], `queue ${key}`).queueArn),
      });
    }
    if (settings.sendsToDlqOf?.length) {
      allow({
        actions: ['sqs:SendMessage'],
        resources: settings.sendsToDlqOf.map(
          (key) => need(resources.deadLetterQueues?.[key], `the DLQ of ${key}`).queueArn,
        ),
      });
    }
    if (settings.readsQueueDepths) {
      const all = { ...need(resources.queues, 'the queues') };
      const dead = { ...need(resources.deadLetterQueues, 'the DLQs') };
      allow({
        actions: ['sqs:GetQueueAttributes'],
        resources: [...Object.values(all), ...Object.values(dead)].map((queue) => queue.queueArn),
      });
    }
    if (settings.credentialsKey) {
      const key = need(resources.credentialsKey, 'the credentials key');
      allow({
        actions: [settings.credentialsKey === 'seal' ? 'kms:GenerateDataKey' : 'kms:Decrypt'],
        resources: [key.keyArn],
        // The vault's data keys only, as the key's own policy says.
        conditions: withTheVaultsContext,
      });
    }
    if (settings.createsSchedules) {
      const { group, role } = need(resources.scheduler, 'the schedule group');
      allow({ actions: ['scheduler:CreateSchedule'], resources: [scheduleArns(group)] });
      allow({
        actions: ['iam:PassRole'],
        resources: [role.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      });
    }
    if (settings.deletesSchedules) {
      const { group } = need(resources.scheduler, 'the schedule group');
      allow({ actions: ['scheduler:DeleteSchedule'], resources: [scheduleArns(group)] });
    }
    for (const key of settings.secrets) {
      const secret = need(resources.secrets?.[key], `secret ${key}`);
      allow({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] });
    }
  }
}

export interface AccessibleResources {
  tables?: Partial<Record<TableKey, dynamodb.ITable>>;
  queues?: Partial<Record<QueueKey, sqs.IQueue>>;
  /** The queues' DLQs (their depths: the operator's view; the outbox relay's, which it sends to). */
  deadLetterQueues?: Partial<Record<QueueKey, sqs.IQueue>>;
  credentialsKey?: kms.IKey;
  scheduler?: { group: scheduler.IScheduleGroup; role: iam.IRole };
  secrets?: Partial<Record<SecretKey, secretsmanager.ISecret>>;
}

/** Every schedule of the group (their names are made per deposit, at run time), and nothing else. */
export function scheduleArns(group: scheduler.IScheduleGroup): string {
  const stack = group.stack;
  return stack.formatArn({
    service: 'scheduler',
    resource: 'schedule',
    resourceName: `${group.scheduleGroupName}/*`,
  });
}
