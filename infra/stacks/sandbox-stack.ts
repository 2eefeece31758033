/**
 * The provider sandbox, optional (`-c sandbox=true`, the default in dev): its table, its
 * application secret (in Secrets Manager, read by the functions at cold start), one function per
 * topology route and its HTTP API. The orchestrator calls it unless `providerBaseUrl` is set.
 */
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { type HandlerName, sandboxApi, tables } from '#shared/topology';
import type { DeploymentConfig } from '../cdk/config.ts';
import { suppress } from '../cdk/nag.ts';
import { functionsOf, observability, pascal } from '../cdk/settings.ts';
import { HandlerFunction } from '../constructs/handler-function.ts';
import { TopologyApi } from '../constructs/topology-api.ts';
import { topologyTable } from '../constructs/topology-table.ts';

export interface SandboxStackProps extends StackProps {
  config: DeploymentConfig;
  alarmTopic: sns.ITopic;
}

export class SandboxStack extends Stack {
  readonly table: dynamodb.Table;
  readonly appSecret: secretsmanager.Secret;
  readonly functions: Map<HandlerName, HandlerFunction>;
  readonly api: TopologyApi;
  /** The sandbox's base URL: the provider the orchestrator calls by default. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: SandboxStackProps) {
    super(scope, id, props);
    const { config } = props;

    this.table = topologyTable(this, 'SandboxTable', tables.sandbox, config.stage);
    this.appSecret = new secretsmanager.Secret(this, 'AppSecret', {
      description: 'The sandbox application secret (appSecret of every sandbox request)',
      generateSecretString: { passwordLength: 32, excludePunctuation: true, includeSpace: false },
      removalPolicy: config.stage === 'prod' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    suppress(this.appSecret, ['sandboxSecretRotation']);

    // The table and the secret go only to the functions that load the sandbox.
    const sandboxEnvironment: Record<string, string> = {
      [tables.sandbox.envVar]: this.table.tableName,
      SANDBOX_APP_SECRET_ARN: this.appSecret.secretArn,
    };
    const environment: Record<string, string> = {
      POWERTOOLS_SERVICE_NAME: 'sandbox',
      POWERTOOLS_METRICS_NAMESPACE: observability.namespace,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      // Events carry credentials: never log them, whatever the log level.
      POWERTOOLS_LOGGER_LOG_EVENT: 'false',
      ...Object.fromEntries(
        Object.entries(config.tuning).filter(
          ([name]) => name.startsWith('SANDBOX_') || name === 'POWERTOOLS_LOG_LEVEL',
        ),
      ),
    };

    this.functions = new Map(
      functionsOf('sandbox').map((settings) => {
        const handler = new HandlerFunction(this, pascal(settings.name), {
          settings,
          stage: config.stage,
          environment: settings.table ? { ...sandboxEnvironment, ...environment } : environment,
          alarmTopic: props.alarmTopic,
          prefix: config.prefix,
        });
        handler.grantAccess({ tables: { sandbox: this.table }, secrets: { sandboxApp: this.appSecret } });
        suppress(handler.function, ['nodeRuntime']);
        return [settings.name, handler];
      }),
    );

    this.api = new TopologyApi(this, 'SandboxApi', {
      spec: sandboxApi,
      functionOf: (handler) => {
        const found = this.functions.get(handler);
        if (!found) throw new Error(`no function for topology handler ${handler}`);
        return found.function;
      },
      name: `${config.prefix}-sandbox`,
      stage: config.stage,
      alarmTopic: props.alarmTopic,
      alarmOnServerErrors: false,
    });
    suppress(this.api, ['publicApi']);
    this.url = this.api.url;

    new CfnOutput(this, 'SandboxApiUrl', { value: this.url, description: 'The provider sandbox' });
    new CfnOutput(this, 'SandboxAppSecretArn', {
      value: this.appSecret.secretArn,
      description: 'The sandbox application secret (aws secretsmanager get-secret-value --secret-id <arn>)',
    });
  }
}
