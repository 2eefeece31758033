/**
 * The operators' way in, on the deposits' stateless stack: the operator API with their IAM identity
 * (SigV4) on every route, `$default` too (no route is open), and three managed policies for their
 * roles, one power each: reading (list, get, the queues); acting (cancel, redrive, and reading); and
 * resolving (`resolve` alone: saying that a transfer whose outcome was unknown was done or failed,
 * the power to say money moved, apart from the everyday actions). Made on the stack itself, so the
 * resources keep their logical ids.
 */
import { CfnOutput, type Stack } from 'aws-cdk-lib';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { type HandlerName, operatorApi } from '#shared/topology';
import type { Stage } from '../cdk/context.ts';
import { TopologyApi } from '../constructs/topology-api.ts';

export interface OperatorApiProps {
  prefix: string;
  stage: Stage;
  alarmTopic: sns.ITopic;
  functionOf: (handler: HandlerName) => lambda.IFunction;
}

/** The route that settles an unknown transfer outcome: its own policy, in no other. */
export const resolveHandler: HandlerName = 'operator-resolve';

/** Adds the operator API, its three policies and their outputs to `stack`; the API. */
export function addOperatorApi(stack: Stack, props: OperatorApiProps): TopologyApi {
  const api = new TopologyApi(stack, 'OperatorApi', {
    spec: operatorApi,
    functionOf: props.functionOf,
    name: `${props.prefix}-operator`,
    stage: props.stage,
    alarmTopic: props.alarmTopic,
    alarmOnServerErrors: true,
    access: { authorizer: new HttpIamAuthorizer(), openRoutes: [] },
  });
  new CfnOutput(stack, 'OperatorApiUrl', {
    value: api.url,
    description: 'The operator API (IAM: sign with SigV4)',
  });
  const invoke = (routes: typeof operatorApi.routes) =>
    new iam.PolicyStatement({
      actions: ['execute-api:Invoke'],
      resources: routes.map((route) => api.api.arnForExecuteApi(route.method, route.path, '$default')),
    });
  const resolves = (route: (typeof operatorApi.routes)[number]) => route.handler === resolveHandler;
  if (!operatorApi.routes.some(resolves))
    throw new Error(`the operator API has no route to ${resolveHandler}`);
  const readerPolicy = new iam.ManagedPolicy(stack, 'OperatorApiReaderPolicy', {
    description: `Reads through the ${props.prefix} operator API: list, get, queues (attach it to the operators' role)`,
    statements: [invoke(operatorApi.routes.filter((route) => !route.acts))],
  });
  const actorPolicy = new iam.ManagedPolicy(stack, 'OperatorApiActorPolicy', {
    description: `Reads and acts through the ${props.prefix} operator API: cancel and redrive too, not resolve (attach it to the role of the operators who act)`,
    statements: [invoke(operatorApi.routes.filter((route) => !resolves(route)))],
  });
  const resolverPolicy = new iam.ManagedPolicy(stack, 'OperatorApiResolverPolicy', {
    description: `Resolves unknown transfer outcomes through the ${props.prefix} operator API: resolve alone (attach it only to the role of the operators who may say money moved, beside the reader's)`,
    statements: [invoke(operatorApi.routes.filter(resolves))],
  });
  new CfnOutput(stack, 'OperatorApiReaderPolicyArn', {
    value: readerPolicy.managedPolicyArn,
    description: "Attach to the operators' IAM role: they may read through the operator API (SigV4)",
  });
  new CfnOutput(stack, 'OperatorApiActorPolicyArn', {
    value: actorPolicy.managedPolicyArn,
    description: 'Attach to the IAM role of the operators who act: they may also cancel and redrive (SigV4)',
  });
  new CfnOutput(stack, 'OperatorApiResolverPolicyArn', {
    value: resolverPolicy.managedPolicyArn,
    description:
      'Attach only to the IAM role of the operators who may settle an unknown transfer outcome: resolve (SigV4)',
  });
  return api;
}
