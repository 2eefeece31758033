/**
 * A topology API as an API Gateway HTTP API (payload 2.0, what the handlers and the local gateway
 * speak): one route per topology route, the `$default` route to the API's default handler, one
 * `$default` stage with throttling and JSON access logs (no headers, so no credentials). Optionally
 * an authorizer on every route (the `$default` one too) but the ones left open, and a throttle per
 * route on the stage.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { type ApiSpec, type HandlerName, handlerFile } from '#shared/topology';
import type { RouteThrottle } from '../cdk/config.ts';
import type { Stage } from '../cdk/context.ts';
import { apiThrottle } from '../cdk/settings.ts';
import { notifyingAlarm } from './alarms.ts';

export interface TopologyApiProps {
  spec: ApiSpec;
  /** The function of each handler. */
  functionOf: (handler: HandlerName) => lambda.IFunction;
  name: string;
  stage: Stage;
  alarmTopic: sns.ITopic;
  /** Alarm on 5xx answers (not for the sandbox, whose injected faults answer 5xx on purpose). */
  alarmOnServerErrors: boolean;
  /** Who may call: the authorizer of every route, but `openRoutes` (route keys such as `GET /health`). */
  access?: { authorizer: apigw.IHttpRouteAuthorizer; scopes?: string[]; openRoutes: string[] };
  /** A throttle of its own for these route keys, on the stage (the others get the stage's). */
  routeThrottle?: Record<string, RouteThrottle>;
}

const accessLogFormat = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    ip: '$context.identity.sourceIp',
    // Who called, as the IAM authorizer verified it (SigV4); empty on an API without IAM.
    userArn: '$context.identity.userArn',
    caller: '$context.identity.caller',
    callerAccount: '$context.identity.accountId',
    authorizerError: '$context.authorizer.error',
    requestTime: '$context.requestTime',
    method: '$context.httpMethod',
    routeKey: '$context.routeKey',
    path: '$context.path',
    status: '$context.status',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);

export class TopologyApi extends Construct {
  readonly api: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  /** The API's base URL, with a trailing slash. */
  readonly url: string;
  readonly serverErrorsAlarm?: cloudwatch.Alarm;
  /** The routes by route key (`POST /v1/deposits/create`). */
  readonly routes = new Map<string, apigw.HttpRoute>();

  constructor(scope: Construct, id: string, props: TopologyApiProps) {
    super(scope, id);
    const { spec, functionOf } = props;
    const production = props.stage === 'prod';
    // Named by the handler's module, as each integration always was.
    const integration = (handler: HandlerName) =>
      new HttpLambdaIntegration(handlerFile(handler).replace(/[^A-Za-z0-9]/g, ''), functionOf(handler));

    this.api = new apigw.HttpApi(this, 'Api', {
      apiName: props.name,
      description: `The ${spec.name} API, from shared/topology.ts`,
      createDefaultStage: false,
      defaultIntegration: integration(spec.defaultHandler),
      ...(props.access
        ? {
            defaultAuthorizer: props.access.authorizer,
            ...(props.access.scopes?.length ? { defaultAuthorizationScopes: props.access.scopes } : {}),
          }
        : {}),
    });
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: production ? logs.RetentionDays.ONE_YEAR : logs.RetentionDays.TWO_WEEKS,
      removalPolicy: production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: apiThrottle,
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(accessLogs),
        format: accessLogFormat,
      },
    });
    for (const route of spec.routes) {
      const routeKey = `${route.method} ${route.path}`;
      const open = props.access?.openRoutes.includes(routeKey) ?? false;
      const [added] = this.api.addRoutes({
        path: route.path,
        methods: [apigw.HttpMethod[route.method]],
        integration: integration(route.handler),
        ...(open ? { authorizer: new apigw.HttpNoneAuthorizer() } : {}),
      });
      if (added) this.routes.set(routeKey, added);
    }
    if (props.routeThrottle) this.throttleRoutes(props.routeThrottle);
    this.url = this.stage.url;
    if (!props.alarmOnServerErrors) return;

    this.serverErrorsAlarm = notifyingAlarm(this, 'ServerErrorsAlarm', {
      topic: props.alarmTopic,
      alarmName: `${props.name}-5xx`,
      description: `The ${spec.name} API answered 5xx to at least 5 requests in 5 minutes: a handler failed, timed out or was throttled. See the functions' error alarms and the access logs.`,
      metric: this.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 5,
    });
  }

  /** Route settings on the stage (CloudFormation's `RouteSettings`; the L2 stage sets only the default). */
  private throttleRoutes(throttles: Record<string, RouteThrottle>) {
    // The L1 property is untyped JSON, written to the template as given: CloudFormation's own names.
    const stage = this.stage.node.defaultChild as apigw.CfnStage;
    stage.routeSettings = Object.fromEntries(
      Object.entries(throttles).map(([routeKey, throttle]) => {
        const route = this.routes.get(routeKey);
        if (!route) throw new Error(`no route ${routeKey} to throttle`);
        // The stage names the route by its key: the route must exist first.
        stage.node.addDependency(route);
        return [
          routeKey,
          { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit },
        ];
      }),
    );
  }
}
