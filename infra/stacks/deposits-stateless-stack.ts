/**
 * What the deposits do: one function per topology handler of the orchestrator (deposits API, step
 * consumers, notifier, sweeper), each granted only what it uses, and the rules that report a change to
 * those that seal or open credentials; the deposits HTTP API; the queues'
 * event source mappings; the sweeper's recurring rule; alarms and the dashboard; who may call the
 * API (IAM or JWT, from CDK context) and the policy a caller's role attaches. Everything here
 * can be replaced without losing a deposit: the state is in the stateful stack.
 */
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpIamAuthorizer, HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import {
  depositsApi,
  type HandlerName,
  outbox,
  queues,
  sweeper,
  watchedQueuesVariable,
} from '#shared/topology';
import type { DeploymentConfig } from '../cdk/config.ts';
import { environmentOf } from '../cdk/environment.ts';
import { suppress } from '../cdk/nag.ts';
import { functionsOf, observability, pascal, type QueueKey, settingsOf } from '../cdk/settings.ts';
import { watchTheCredentialFunctions } from '../constructs/credentials-watch.ts';
import { DepositsMonitoring } from '../constructs/deposits-monitoring.ts';
import { HandlerFunction } from '../constructs/handler-function.ts';
import { TopologyApi } from '../constructs/topology-api.ts';
import { resourceVariables } from '../environment.ts';
import type { DepositsStatefulStack } from './deposits-stateful-stack.ts';
import { addOperatorApi } from './operator-access.ts';

/** The one deposits route open to anyone: the health check, which reads nothing and answers `ok`. */
export const depositsOpenRoute = 'GET /health';

const fail = (routeKey: string): never => {
  throw new Error(`no deposits route ${routeKey}`);
};

export interface DepositsStatelessStackProps extends StackProps {
  config: DeploymentConfig;
  stateful: DepositsStatefulStack;
  /** The provider the steps call: configured, or the sandbox stack's URL. */
  providerBaseUrl: string;
}

export class DepositsStatelessStack extends Stack {
  /** Functions by handler name. */
  readonly functions: Map<HandlerName, HandlerFunction>;
  readonly api: TopologyApi;
  /** The operator API: IAM on every route, `$default` included. */
  readonly operatorApi: TopologyApi;
  readonly monitoring: DepositsMonitoring;

  constructor(scope: Construct, id: string, props: DepositsStatelessStackProps) {
    super(scope, id, props);
    const { config, stateful } = props;
    const webhook = config.webhookUrl !== undefined;

    // Every value a function may be given: the resources' (as the local stack's, `resourceVariables`)
    // and the configuration's; each gets only those its line names (`environment.ts`).
    const values: Record<string, string> = {
      ...resourceVariables({
        tables: { deposits: stateful.depositsTable.tableName },
        queue: (key) => ({
          url: stateful.queues[key].queue.queueUrl,
          arn: stateful.queues[key].queue.queueArn,
          dlqUrl: stateful.queues[key].deadLetterQueue.queueUrl,
        }),
        scheduleGroup: stateful.scheduleGroup.scheduleGroupName,
        schedulerRoleArn: stateful.schedulerRole.roleArn,
        schedulerDlqArn: stateful.schedulerDeadLetterQueue.queueArn,
        notifies: webhook,
        json: (value) => this.toJsonString(value),
      }),
      WALLET_ACCOUNTS: JSON.stringify(config.walletAccounts),
      DEFAULT_WALLET_ACCOUNT_ID: config.defaultWalletAccountId,
      // The resolve alone: when a resolution to done needs a second operator.
      RESOLVE_APPROVAL_ABOVE: JSON.stringify(config.resolveApprovalAbove),
      CREDENTIALS_KEY_ARN: stateful.credentialsKey.keyArn,
      PROVIDER_BASE_URL: props.providerBaseUrl,
      PROVIDER_DIALECT: config.providerDialect,
      POWERTOOLS_SERVICE_NAME: 'deposits',
      POWERTOOLS_METRICS_NAMESPACE: observability.namespace,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      // Events carry credentials: never log them, whatever the log level.
      POWERTOOLS_LOGGER_LOG_EVENT: 'false',
      ...Object.fromEntries(Object.entries(config.tuning).filter(([name]) => !name.startsWith('SANDBOX_'))),
      // The notifier alone signs: the secret's ARN, never its value (read at cold start).
      ...(config.webhookUrl
        ? { WEBHOOK_URL: config.webhookUrl, WEBHOOK_SECRET_ARN: stateful.webhookSecret.secretArn }
        : {}),
      // The routes that take a caller's token alone key it: the owner key's ARN, never its value.
      OWNER_KEY_SECRET_ARN: stateful.ownerKeySecret.secretArn,
    };

    this.functions = new Map(
      functionsOf('deposits').map((settings) => {
        const handler = new HandlerFunction(this, pascal(settings.name), {
          settings,
          stage: config.stage,
          environment: environmentOf(settings, values, watchedQueuesVariable),
          alarmTopic: stateful.alarmTopic,
          prefix: config.prefix,
          // The API functions' caps keep a flood of calls from the step consumers' concurrency.
          reservedConcurrency: config.reservedConcurrency[settings.name],
        });
        handler.grantAccess({
          tables: { deposits: stateful.depositsTable },
          queues: Object.fromEntries(
            Object.entries(stateful.queues).map(([key, stepQueue]) => [key, stepQueue.queue]),
          ),
          deadLetterQueues: Object.fromEntries(
            Object.entries(stateful.queues).map(([key, stepQueue]) => [key, stepQueue.deadLetterQueue]),
          ),
          credentialsKey: stateful.credentialsKey,
          scheduler: { group: stateful.scheduleGroup, role: stateful.schedulerRole },
          secrets: { webhookSigning: stateful.webhookSecret, ownerKey: stateful.ownerKeySecret },
        });
        if (settings.createsSchedules || settings.deletesSchedules) {
          suppress(
            handler.role,
            ['schedulesInGroup'],
            [{ regex: '/^Resource::arn:.*:schedule\\/.*\\/\\*$/' }],
          );
        }
        suppress(handler.function, ['nodeRuntime']);
        return [settings.name, handler];
      }),
    );
    // Any new code, configuration or use of the role of a function that seals or opens credentials
    // tells the alarm topic (the credentials key's own calls are watched beside the key).
    watchTheCredentialFunctions(this, 'CredentialFunctionCalls', {
      prefix: config.prefix,
      functions: [...this.functions.values()]
        .filter((handler) => handler.settings.credentialsKey)
        .map((handler) => ({ function: handler.function, role: handler.role })),
      topic: stateful.alarmTopic,
    });

    const functionOf = (handler: HandlerName) => {
      const found = this.functions.get(handler);
      if (!found) throw new Error(`no function for topology handler ${handler}`);
      return found;
    };

    // Each queue feeds its consumer: a record that fails is reported alone and comes back later;
    // at most `maxConcurrency` consumers at once, which is what protects the provider.
    for (const [key, spec] of Object.entries(queues) as [QueueKey, (typeof queues)[QueueKey]][]) {
      functionOf(spec.handler).function.addEventSource(
        new SqsEventSource(stateful.queues[key].queue, {
          batchSize: spec.batchSize,
          maxConcurrency: spec.maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
    }

    // The outbox relay reads the deposits table's stream: only images that carry an event, in order.
    // What it cannot relay it sets aside whole in its own DLQ (`outbox.queue`'s); a record it cannot
    // set aside either is retried, then its position goes to the mapping's DLQ, the last resort. Its
    // grants are on that stream only: the mapping names the stream, so it needs no ListStreams (which
    // has no resource scope).
    const relay = functionOf(outbox.handler);
    const streamArn = stateful.depositsTable.tableStreamArn;
    if (!streamArn) throw new Error('the deposits table has no stream');
    relay.function.addEventSourceMapping('OutboxStream', {
      eventSourceArn: streamArn,
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: outbox.batchSize,
      retryAttempts: outbox.retryAttempts,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(stateful.outboxDeadLetterQueue),
      filters: [
        lambda.FilterCriteria.filter({
          dynamodb: { NewImage: { [outbox.eventAttribute]: { M: lambda.FilterRule.exists() } } },
        }),
      ],
    });
    relay.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        resources: [streamArn],
      }),
    );

    new events.Rule(this, 'SweepRule', {
      description: 'Re-drives deposits that stopped moving (the sweeper)',
      schedule: events.Schedule.rate(Duration.minutes(sweeper.everyMinutes)),
      // A missed run is made up by the next one.
      targets: [new targets.LambdaFunction(functionOf(sweeper.handler).function, { retryAttempts: 0 })],
    });

    // Only the wallet's backend may call: its IAM identity (SigV4) or its JWT, on every route but
    // the health check, each route throttled on its own.
    const access = config.depositsAccess;
    this.api = new TopologyApi(this, 'DepositsApi', {
      spec: depositsApi,
      functionOf: (handler) => functionOf(handler).function,
      name: `${config.prefix}-deposits`,
      stage: config.stage,
      alarmTopic: stateful.alarmTopic,
      alarmOnServerErrors: true,
      access: {
        authorizer:
          access.kind === 'iam'
            ? new HttpIamAuthorizer()
            : new HttpJwtAuthorizer('BackendJwt', access.issuer, { jwtAudience: access.audience }),
        ...(access.kind === 'jwt' ? { scopes: access.scopes } : {}),
        openRoutes: [depositsOpenRoute],
      },
      routeThrottle: config.depositsThrottle,
    });
    suppress(this.api.routes.get(depositsOpenRoute) ?? fail(depositsOpenRoute), ['publicApi']);
    if (access.kind === 'iam') {
      // What the backend's role needs: Invoke on each deposits route of this stage, nothing else.
      const callerPolicy = new iam.ManagedPolicy(this, 'DepositsApiCallerPolicy', {
        description: `Calls the ${config.prefix} deposits API (attach it to the wallet backend's role)`,
        statements: [
          new iam.PolicyStatement({
            actions: ['execute-api:Invoke'],
            resources: depositsApi.routes
              .filter((route) => `${route.method} ${route.path}` !== depositsOpenRoute)
              .map((route) => this.api.api.arnForExecuteApi(route.method, route.path, '$default')),
          }),
        ],
      });
      new CfnOutput(this, 'DepositsApiCallerPolicyArn', {
        value: callerPolicy.managedPolicyArn,
        description: "Attach to the wallet backend's IAM role: it may then call the deposits API (SigV4)",
      });
    }

    this.operatorApi = addOperatorApi(this, {
      prefix: config.prefix,
      stage: config.stage,
      alarmTopic: stateful.alarmTopic,
      functionOf: (handler) => functionOf(handler).function,
    });

    this.monitoring = new DepositsMonitoring(this, 'Monitoring', {
      prefix: config.prefix,
      stateful,
      functions: [...this.functions.values()],
      sweeper: functionOf(sweeper.handler),
      api: this.api,
      consumers: Object.fromEntries(
        Object.entries(queues).map(([key, spec]) => [key, spec.handler]),
      ) as Record<QueueKey, string>,
    });

    new CfnOutput(this, 'DepositsApiUrl', { value: this.api.url, description: 'The deposits API' });
    new CfnOutput(this, 'NotifierFunctionName', {
      value: functionOf(queues.notify.handler).function.functionName,
      description: 'The webhook notifier (restart it after rotating the webhook secret)',
    });
    new CfnOutput(this, 'DashboardName', {
      value: this.monitoring.dashboard.dashboardName,
      description: 'CloudWatch dashboard of the deposits',
    });
  }
}
