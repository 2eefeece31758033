/**
 * Who may call the deposits API in AWS: every deposits route (and the default route) requires the
 * wallet backend's IAM signature, or its JWT (CDK context `depositsAuth=jwt`); only the health
 * route is open. Each route has its own throttle on the stage. cdk-nag passes with the suppressions
 * it had (APIG4 on the deposits API narrowed to the health route).
 */
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { DeploymentConfigError, readDeploymentConfig } from '#infra/cdk/config';
import { depositsRouteThrottle } from '#infra/cdk/settings';
import { depositsApi } from '#shared/topology';
import {
  configurations,
  managedPolicy,
  nagFindings,
  routesOf,
  type Synthesized,
  synthesize,
} from './synth.ts';

const jwtContext = {
  ...configurations.prodWithoutSandbox,
  depositsAuth: 'jwt',
  jwtIssuer: 'https://auth.wallet.example.com/',
  jwtAudience: 'deposits-api,deposits-api-staging',
  jwtScopes: 'deposits/write',
  depositsThrottle: JSON.stringify({ 'POST /v1/deposits/create': { rateLimit: 7, burstLimit: 9 } }),
};

type Nag = { cdk_nag?: { rules_to_suppress?: { id: string }[] } };

let iam: Synthesized;
let iamProd: Synthesized;
let jwt: Synthesized;
beforeAll(() => {
  iam = synthesize(configurations.devWithSandbox);
  iamProd = synthesize(configurations.prodWithoutSandbox);
  jwt = synthesize(jwtContext);
});

const routeKeys = depositsApi.routes.map((route) => `${route.method} ${route.path}`);
const guarded = [...routeKeys.filter((key) => key !== 'GET /health'), '$default'];

const routes = (synthesized: Synthesized) => routesOf(synthesized, 'DepositsApi');

describe('the deposits API in AWS', () => {
  it('requires IAM authorization (SigV4) on every route but health, by default, in dev and prod', () => {
    for (const synthesized of [iam, iamProd]) {
      const byKey = routes(synthesized);
      expect([...byKey.keys()].sort()).toEqual([...routeKeys, '$default'].sort());
      // The payment sources' routes deploy beside the deposits' and are guarded the same way.
      for (const path of ['/v1/sources/create', '/v1/sources/get', '/v1/sources/list', '/v1/sources/cancel'])
        expect(byKey.get(`POST ${path}`)?.AuthorizationType).toBe('AWS_IAM');
      for (const key of guarded)
        expect({ key, type: byKey.get(key)?.AuthorizationType }).toEqual({ key, type: 'AWS_IAM' });
      expect(byKey.get('GET /health')?.AuthorizationType).toBe('NONE');
      synthesized.templates.stateless.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
    }
  });

  it("gives the backend's role a policy to invoke exactly the guarded routes of this API", () => {
    const template = iam.templates.stateless;
    const policy = managedPolicy(iam, 'DepositsApiCallerPolicy') ?? expect.fail('no caller policy');
    const document = policy.Properties?.PolicyDocument as {
      Statement: { Action: string; Resource: unknown[] }[];
    };
    expect(document.Statement).toHaveLength(1);
    const [statement] = document.Statement;
    expect(statement?.Action).toBe('execute-api:Invoke');
    const resources = JSON.stringify(statement?.Resource);
    for (const key of guarded.filter((k) => k !== '$default')) {
      const [method, path] = key.split(' ');
      expect(resources).toContain(`/$default/${method}${path}`);
    }
    expect(resources).not.toContain('/health');
    expect(statement?.Resource).toHaveLength(guarded.length - 1);
    template.hasOutput('DepositsApiCallerPolicyArn', {});
  });

  it('requires a JWT of the configured issuer, audiences and scopes with depositsAuth=jwt', () => {
    const template = jwt.templates.stateless;
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: {
        Issuer: 'https://auth.wallet.example.com/',
        Audience: ['deposits-api', 'deposits-api-staging'],
      },
    });
    const byKey = routes(jwt);
    for (const key of guarded) {
      expect({ key, route: byKey.get(key) }).toMatchObject({
        key,
        route: {
          AuthorizationType: 'JWT',
          AuthorizerId: expect.anything(),
          AuthorizationScopes: ['deposits/write'],
        },
      });
    }
    expect(byKey.get('GET /health')?.AuthorizationType).toBe('NONE');
    expect(managedPolicy(jwt, 'DepositsApiCallerPolicy')).toBeUndefined();
  });

  it('throttles each route on the stage: the defaults, and the context over them', () => {
    const expected = (overrides: Record<string, { rateLimit: number; burstLimit: number }>) =>
      Object.fromEntries(
        Object.entries({ ...depositsRouteThrottle, ...overrides }).map(([key, throttle]) => [
          key,
          { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit },
        ]),
      );
    expect(Object.keys(depositsRouteThrottle).sort()).toEqual([...routeKeys].sort());
    iam.templates.stateless.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      RouteSettings: expected({}),
      DefaultRouteSettings: { ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() },
    });
    jwt.templates.stateless.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      RouteSettings: expected({ 'POST /v1/deposits/create': { rateLimit: 7, burstLimit: 9 } }),
    });
  });

  it('passes cdk-nag with the suppressions it had: APIG4 only on the health route of the deposits API', () => {
    for (const synthesized of [iam, iamProd, jwt]) expect(nagFindings(synthesized.deployment)).toEqual([]);
    const template = iam.templates.stateless.toJSON() as {
      Resources: Record<string, { Type: string; Properties?: { RouteKey?: string }; Metadata?: Nag }>;
    };
    const apig4 = Object.values(template.Resources).filter((resource) =>
      (resource.Metadata?.cdk_nag?.rules_to_suppress ?? []).some((rule) => rule.id === 'AwsSolutions-APIG4'),
    );
    // On the health route (and what hangs under it: its integration, its invoke permission), no other.
    expect(
      apig4
        .filter((resource) => resource.Type === 'AWS::ApiGatewayV2::Route')
        .map((r) => r.Properties?.RouteKey),
    ).toEqual(['GET /health']);
    expect(apig4.map((resource) => resource.Type).sort()).toEqual([
      'AWS::ApiGatewayV2::Integration',
      'AWS::ApiGatewayV2::Route',
      'AWS::Lambda::Permission',
    ]);
  });
});

describe('deposits access context', () => {
  const read = (context: Record<string, unknown>) => readDeploymentConfig((key) => context[key], {});

  it('is IAM unless told otherwise', () => {
    expect(read({}).depositsAccess).toEqual({ kind: 'iam' });
  });

  it('names the missing or stray key', () => {
    expect(() => read({ depositsAuth: 'jwt', jwtAudience: 'a' })).toThrow(DeploymentConfigError);
    expect(() => read({ depositsAuth: 'jwt', jwtAudience: 'a' })).toThrow(/jwtIssuer/);
    expect(() => read({ depositsAuth: 'jwt', jwtIssuer: 'https://issuer.example.com' })).toThrow(
      /jwtAudience/,
    );
    expect(() =>
      read({ depositsAuth: 'jwt', jwtIssuer: 'https://issuer.example.com', jwtAudience: 'a' }),
    ).toThrow(/jwtScopes: required with depositsAuth=jwt/);
    expect(() => read({ jwtIssuer: 'https://issuer.example.com' })).toThrow(
      /jwtIssuer: only with depositsAuth=jwt/,
    );
    expect(() => read({ depositsAuth: 'cognito' })).toThrow(/depositsAuth/);
    expect(() => read({ depositsThrottle: '{"POST /v1/nothing":{"rateLimit":1,"burstLimit":1}}' })).toThrow(
      /depositsThrottle: POST \/v1\/nothing is not a deposits route/,
    );
  });
});
