/**
 * The operator API in AWS: IAM authorization (SigV4) on every route, `$default` included, in every
 * configuration (the deposits API's JWT option does not reach it); no open route; a policy for the
 * operators' role to invoke exactly its routes; its URL as the stack output `OperatorApiUrl`; and
 * each operator function granted exactly what its reach says, nothing else.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readDeploymentConfig } from '#infra/cdk/config';
import { type HandlerName, operatorApi, queues, watchedQueuesVariable } from '#shared/topology';
import {
  actionsOf,
  configurations,
  environmentOf,
  functionsByHandler,
  managedPolicy,
  resourcesOf,
  routesOf,
  type Statement,
  type Synthesized,
  statementsOfFunction,
  synthesize,
  text,
} from './synth.ts';

let dev: Synthesized;
let prod: Synthesized;
let jwt: Synthesized;
beforeAll(() => {
  dev = synthesize(configurations.devWithSandbox);
  prod = synthesize(configurations.prodWithoutSandbox);
  jwt = synthesize({
    ...configurations.prodWithoutSandbox,
    depositsAuth: 'jwt',
    jwtIssuer: 'https://auth.wallet.example.com/',
    jwtAudience: 'deposits-api',
    jwtScopes: 'deposits/write',
  });
});

const routeKeys = operatorApi.routes.map((route) => `${route.method} ${route.path}`);
const handlerOf = (path: string) =>
  operatorApi.routes.find((route) => route.path === path)?.handler ?? expect.fail(`no route ${path}`);

describe('the operator API in AWS', () => {
  it('requires IAM authorization on every route and $default, whatever the deposits API takes', () => {
    for (const synthesized of [dev, prod, jwt]) {
      const byKey = routesOf(synthesized, 'OperatorApi');
      expect([...byKey.keys()].sort()).toEqual([...routeKeys, '$default'].sort());
      for (const [key, route] of byKey) {
        expect({ key, type: route.AuthorizationType }).toEqual({ key, type: 'AWS_IAM' });
      }
    }
  });

  it('outputs its URL, a read-only policy (list, get, deliveries, stats, queues), an acting one (cancel, redrive, resend) and a resolving one (resolve alone)', () => {
    const template = dev.templates.stateless;
    template.hasOutput('OperatorApiUrl', {});
    template.hasOutput('OperatorApiReaderPolicyArn', {});
    template.hasOutput('OperatorApiActorPolicyArn', {});
    template.hasOutput('OperatorApiResolverPolicyArn', {});
    const invoked = (name: string) => {
      const policy = managedPolicy(dev, name) ?? expect.fail(`no ${name}`);
      const document = policy.Properties?.PolicyDocument as { Statement: Statement[] } | undefined;
      const [statement, ...others] = document?.Statement ?? [];
      expect(others).toEqual([]);
      expect(statement?.Action).toBe('execute-api:Invoke');
      const resources = text(statement?.Resource);
      expect(resources).toContain('OperatorApi');
      expect(resources).not.toContain('DepositsApi');
      return routeKeys.filter((key) => resources.includes(`/$default/${key.replace(' ', '')}"`));
    };
    expect(invoked('OperatorApiReaderPolicy')).toEqual([
      'POST /v1/ops/deposits/list',
      'POST /v1/ops/deposits/get',
      'POST /v1/ops/deposits/deliveries',
      'POST /v1/ops/deposits/stats',
      'POST /v1/ops/queues',
    ]);
    // Saying that money moved is a power of its own: in no policy but the resolver's.
    expect(invoked('OperatorApiActorPolicy')).toEqual(
      routeKeys.filter((key) => key !== 'POST /v1/ops/deposits/resolve'),
    );
    expect(invoked('OperatorApiActorPolicy')).toContain('POST /v1/ops/deposits/cancel');
    expect(invoked('OperatorApiActorPolicy')).toContain('POST /v1/ops/deposits/redrive');
    expect(invoked('OperatorApiActorPolicy')).toContain('POST /v1/ops/deposits/resend');
    expect(invoked('OperatorApiResolverPolicy')).toEqual(['POST /v1/ops/deposits/resolve']);
    expect(handlerOf('/v1/ops/deposits/resolve')).toBe('operator-resolve');
  });

  it("logs each call with the caller's verified identity, refused calls included", () => {
    const stages = resourcesOf(dev.templates.stateless, 'AWS::ApiGatewayV2::Stage');
    const [, stage] = stages.find(([id]) => id.startsWith('OperatorApi')) ?? expect.fail('no operator stage');
    const format = JSON.parse(String((stage?.Properties?.AccessLogSettings as { Format?: unknown })?.Format));
    expect(format).toMatchObject({
      userArn: '$context.identity.userArn',
      caller: '$context.identity.caller',
      status: '$context.status',
      authorizerError: '$context.authorizer.error',
    });
  });

  it('alarms on its 5xx answers', () => {
    const names = resourcesOf(dev.templates.stateless, 'AWS::CloudWatch::Alarm').map(([, alarm]) =>
      text(alarm.Properties?.AlarmName),
    );
    expect(names.some((name) => name.includes('-operator-5xx'))).toBe(true);
  });
});

describe('the operator functions', () => {
  const statementsOf = (handler: HandlerName) => statementsOfFunction(dev.templates.stateless, handler);
  const granted = (handler: HandlerName) =>
    [...new Set(actionsOf(statementsOf(handler)))].filter((action) => !action.startsWith('logs:')).sort();
  const on = (handler: HandlerName, action: string) =>
    statementsOf(handler)
      .filter((statement) => actionsOf([statement]).includes(action))
      .map((statement) => text(statement.Resource))
      .join(' ');

  it('grant each route what its reach says, and nothing else', () => {
    expect(granted(handlerOf('/v1/ops/deposits/list'))).toEqual(['dynamodb:BatchGetItem', 'dynamodb:Query']);
    expect(on(handlerOf('/v1/ops/deposits/list'), 'dynamodb:Query')).toContain('/index/byStatus');
    expect(granted(handlerOf('/v1/ops/deposits/get'))).toEqual(['dynamodb:GetItem']);
    // One conditional write of a final deposit (which, as every final write, deletes the deposit's
    // credentials' item with it): no lease, no claim, no queue, no schedule.
    expect(granted(handlerOf('/v1/ops/deposits/resolve'))).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
    ]);
    // The owner's cancel's grants, less the owner key (an operator names the deposit, not a token).
    expect(granted(handlerOf('/v1/ops/deposits/cancel'))).toEqual(
      granted('deposits-cancel').filter((action) => action !== 'secretsmanager:GetSecretValue'),
    );
    expect(granted('deposits-cancel')).toContain('secretsmanager:GetSecretValue');
    expect(granted(handlerOf('/v1/ops/deposits/redrive'))).toEqual(['dynamodb:GetItem', 'sqs:SendMessage']);
    expect(granted(handlerOf('/v1/ops/queues'))).toEqual(['sqs:GetQueueAttributes']);
    // A deposit, and its deliveries' records (a Query of their partition).
    expect(granted(handlerOf('/v1/ops/deposits/deliveries'))).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
    // The event's record read and its resend counted, its event to the notify queue again.
    expect(granted(handlerOf('/v1/ops/deposits/resend'))).toEqual([
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'sqs:SendMessage',
    ]);
    expect(on(handlerOf('/v1/ops/deposits/resend'), 'sqs:SendMessage')).toMatch(/NotifyQueue/);
    // The status index's creation times, and the newest done deposits by key.
    expect(granted(handlerOf('/v1/ops/deposits/stats'))).toEqual(['dynamodb:BatchGetItem', 'dynamodb:Query']);
    expect(on(handlerOf('/v1/ops/deposits/stats'), 'dynamodb:Query')).toContain('/index/byStatus');
    expect(granted(operatorApi.defaultHandler)).toEqual([]);
  });

  it('let the redrive send to the step queues only, and the queues route read every queue and DLQ', () => {
    const sends = on(handlerOf('/v1/ops/deposits/redrive'), 'sqs:SendMessage');
    const depths = statementsOf(handlerOf('/v1/ops/queues')).filter((statement) =>
      actionsOf([statement]).includes('sqs:GetQueueAttributes'),
    );
    const resources = depths.flatMap((statement) =>
      Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource],
    );

    expect(sends).not.toMatch(/NotifyQueue/);
    expect(resources).toHaveLength(Object.keys(queues).length * 2);
    expect(text(resources)).toMatch(/NotifyQueueDeadLetterQueue/);
  });

  it('give the resolve alone the approval thresholds: none by default (every done needs two), the context key resolveApprovalAbove when set', () => {
    const thresholds = { AED: 500_000, KWD: 50_000 };
    const given = synthesize({
      ...configurations.prodWithoutSandbox,
      resolveApprovalAbove: JSON.stringify(thresholds),
    });
    const resolveOf = (synthesized: Synthesized) =>
      environmentOf(
        functionsByHandler(synthesized.templates.stateless).get(handlerOf('/v1/ops/deposits/resolve'))
          ?.resource,
      );

    expect(resolveOf(dev).RESOLVE_APPROVAL_ABOVE).toBe('{}');
    expect(resolveOf(given).RESOLVE_APPROVAL_ABOVE).toBe(JSON.stringify(thresholds));
    for (const [handler, { resource }] of functionsByHandler(given.templates.stateless)) {
      if (handler === handlerOf('/v1/ops/deposits/resolve')) continue;
      expect(environmentOf(resource).RESOLVE_APPROVAL_ABOVE, handler).toBeUndefined();
    }
  });

  it.each([
    ['{"XYZ":100}', 'XYZ is not a currency the service knows'],
    ['{"AED":10.5}', 'resolveApprovalAbove.AED'],
    ['{"AED":-1}', 'resolveApprovalAbove.AED'],
    ['100000', 'resolveApprovalAbove'],
  ])('refuses resolveApprovalAbove=%s at synth, naming the key', (value, problem) => {
    const read = () =>
      readDeploymentConfig((key) => ({ stage: 'dev', resolveApprovalAbove: value })[key], {});

    expect(read).toThrow(problem);
  });

  it('give the queues route the URLs of every queue of the topology and its DLQ, the others none', () => {
    const functions = functionsByHandler(dev.templates.stateless);
    const queuesFunction = functions.get(handlerOf('/v1/ops/queues'));
    const watched = text(environmentOf(queuesFunction?.resource)[watchedQueuesVariable]);

    for (const spec of Object.values(queues)) {
      expect(watched).toContain(`\\"name\\":\\"${spec.localName}\\"`);
      expect(watched).toContain(`\\"dlqName\\":\\"${spec.localName}-dlq\\"`);
    }
    const others = [...functions].filter(([handler]) => handler !== handlerOf('/v1/ops/queues'));
    for (const [handler, { resource }] of others) {
      expect(environmentOf(resource)[watchedQueuesVariable], handler).toBeUndefined();
    }
  });
});
