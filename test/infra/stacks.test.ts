/**
 * The stacks' resources and properties, from the topology: the functions and the HTTP APIs. Queues,
 * tables and keys; each function's access; its context's reach; alarms and cdk-nag: the `stacks-*`
 * files beside this one. Both configurations are synthesized once per worker (`stacks-world.ts`).
 */
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { settingsOf } from '#infra/cdk/settings';
import { depositsApi, operatorApi, queues, sandboxApi, sweeper, tables } from '#shared/topology';
import { dev, handlersOf, prod, synthesizeBoth, tokenRoutes } from './stacks-world.ts';
import {
  environmentOf,
  functionsByHandler,
  powertools,
  resourcesOf,
  type Synthesized,
  text,
} from './synth.ts';

beforeAll(synthesizeBoth);

describe('functions', () => {
  it('are one function per topology handler: Node 22 on ARM64, in the stack of their component', () => {
    const deposits = functionsByHandler(dev.templates.stateless);
    const sandbox = functionsByHandler(dev.templates.sandbox ?? expect.fail('no sandbox'));

    expect([...deposits.keys()].sort()).toEqual(
      handlersOf('deposits')
        .map((s) => s.name)
        .sort(),
    );
    expect([...sandbox.keys()].sort()).toEqual(
      handlersOf('sandbox')
        .map((s) => s.name)
        .sort(),
    );
    for (const { resource } of [...deposits.values(), ...sandbox.values()]) {
      expect(resource.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Environment: { Variables: expect.objectContaining({ NODE_OPTIONS: '--enable-source-maps' }) },
      });
    }
    // Without the sandbox, its functions are not deployed at all.
    expect(prod.deployment.sandbox).toBeUndefined();
    expect(functionsByHandler(prod.templates.stateless).size).toBe(handlersOf('deposits').length);
  });

  it('have a placeholder for their code, and no bundle, when the synthesis skips bundling (as cdk ls does)', () => {
    for (const template of [dev.templates.stateless, dev.templates.sandbox ?? expect.fail('no sandbox')]) {
      for (const { resource } of functionsByHandler(template).values()) {
        const asset = resolve(dev.outdir, String(resource.Metadata?.['aws:asset:path']));
        expect(readdirSync(asset)).toEqual(['README']);
      }
    }
  });

  it('take timeout and memory from the settings, and log to a log group of their own', () => {
    for (const template of [dev.templates.stateless, dev.templates.sandbox ?? expect.fail('no sandbox')]) {
      for (const [handler, { resource }] of functionsByHandler(template)) {
        const settings = settingsOf(handler);
        expect(resource.Properties).toMatchObject({
          Timeout: settings.timeoutSeconds,
          MemorySize: settings.memoryMb,
          LoggingConfig: { LogGroup: { Ref: expect.stringMatching(/Logs/) } },
        });
      }
    }
    dev.templates.stateless.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 14 });
    prod.templates.stateless.hasResource('AWS::Logs::LogGroup', {
      Properties: { RetentionInDays: 365 },
      DeletionPolicy: 'Retain',
    });
  });

  it('are traced by X-Ray (active), sampled by the deployment’s rule: every request in dev, 5% beyond the first each second in prod', () => {
    for (const synthesized of [dev, prod]) {
      const templates = [synthesized.templates.stateless, synthesized.templates.sandbox];
      for (const template of templates.filter((each) => each !== undefined)) {
        for (const [, { resource }] of functionsByHandler(template)) {
          expect(resource.Properties).toMatchObject({ TracingConfig: { Mode: 'Active' } });
        }
      }
    }
    const rules = (synthesized: Synthesized) =>
      resourcesOf(synthesized.templates.stateful, 'AWS::XRay::SamplingRule').map(
        ([, resource]) => (resource.Properties as { SamplingRule: Record<string, unknown> }).SamplingRule,
      );
    expect(rules(dev)).toEqual([
      expect.objectContaining({
        RuleName: 'BankPayments-dev',
        ServiceName: 'BankPayments-dev-*',
        FixedRate: 1,
        ReservoirSize: 1,
      }),
    ]);
    expect(rules(prod)).toEqual([
      expect.objectContaining({ ServiceName: 'BankPayments-prod-*', FixedRate: 0.05 }),
    ]);
  });

  // Each deposits function's environment, only what its reach names: reach-environment.test.ts.
  it('give the sandbox functions their table and secret only where they load the sandbox', () => {
    for (const [handler, { resource }] of functionsByHandler(
      dev.templates.sandbox ?? expect.fail('no sandbox'),
    )) {
      const variables = environmentOf(resource);
      // Health, not-found and the bank catalog load neither the sandbox nor its table.
      const loadsSandbox = settingsOf(handler).table !== undefined;
      expect(Object.keys(variables).sort(), handler).toEqual(
        [...(loadsSandbox ? [tables.sandbox.envVar, 'SANDBOX_APP_SECRET_ARN'] : []), ...powertools].sort(),
      );
    }
    expect(
      [...functionsByHandler(dev.templates.sandbox ?? expect.fail('no sandbox')).keys()]
        .filter((handler) => settingsOf(handler).table === undefined)
        .sort(),
    ).toEqual(['sandbox-banks-list', 'sandbox-health', 'sandbox-not-found']);
  });

  it('call the sandbox stack in its dialect unless a provider is configured, in the dialect configured', () => {
    // The functions that call the provider: the four steps that open credentials.
    const callers = (synthesized: Synthesized) =>
      [...functionsByHandler(synthesized.templates.stateless)].filter(
        ([handler]) => settingsOf(handler).credentialsKey === 'open',
      );
    expect(callers(dev)).toHaveLength(4);
    for (const [handler, { resource }] of callers(dev)) {
      expect(text(environmentOf(resource).PROVIDER_BASE_URL), handler).toContain('BankPayments-dev-Sandbox');
      expect(environmentOf(resource).PROVIDER_DIALECT, handler).toBe('spec');
    }
    for (const [handler, { resource }] of callers(prod)) {
      const variables = environmentOf(resource);
      expect(variables.PROVIDER_BASE_URL, handler).toBe('https://provider.example.com');
      expect(variables.PROVIDER_DIALECT, handler).toBe('dapi-v2');
    }
  });

  it('never hold a secret value: only the ARNs of the secrets, which the functions read at cold start', () => {
    for (const template of [dev.templates.stateless, dev.templates.sandbox, prod.templates.stateless]) {
      for (const [handler, { resource }] of functionsByHandler(template ?? expect.fail('no template'))) {
        const variables = environmentOf(resource);
        expect(variables.WEBHOOK_SECRET, handler).toBeUndefined();
        expect(variables.SANDBOX_APP_SECRET, handler).toBeUndefined();
        expect(text(variables), handler).not.toMatch(/resolve:secretsmanager|SecretString|whsec_/);
      }
    }
    const secretArn = (variables: Record<string, unknown>) => text(variables.WEBHOOK_SECRET_ARN);
    const notifier = functionsByHandler(prod.templates.stateless).get(queues.notify.handler);
    const variables = environmentOf(notifier?.resource);
    expect(secretArn(variables)).toMatch(/WebhookSigningSecret/);
    for (const handler of tokenRoutes) {
      const { resource } = functionsByHandler(prod.templates.stateless).get(handler) ?? expect.fail(handler);
      expect(environmentOf(resource).OWNER_KEY, handler).toBeUndefined();
      expect(text(environmentOf(resource).OWNER_KEY_SECRET_ARN), handler).toMatch(/OwnerKeySecret/);
    }
  });

  it('sweep on a recurring schedule', () => {
    const sweeperId = functionsByHandler(dev.templates.stateless).get(sweeper.handler)?.id ?? '';
    dev.templates.stateless.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${sweeper.everyMinutes} minute${sweeper.everyMinutes === 1 ? '' : 's'})`,
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [sweeperId, 'Arn'] } })],
    });
  });
});

describe('HTTP APIs', () => {
  it('route every topology route, and everything else to the default handler', () => {
    for (const [template, specs] of [
      [dev.templates.stateless, [depositsApi, operatorApi]],
      [dev.templates.sandbox, [sandboxApi]],
    ] as const) {
      const routeKeys = resourcesOf(template ?? expect.fail('no template'), 'AWS::ApiGatewayV2::Route').map(
        ([, route]) => route.Properties?.RouteKey,
      );
      expect(routeKeys.sort()).toEqual(
        specs
          .flatMap((spec) => [...spec.routes.map((route) => `${route.method} ${route.path}`), '$default'])
          .sort(),
      );
      template?.hasResourceProperties('AWS::ApiGatewayV2::Integration', { PayloadFormatVersion: '2.0' });
      template?.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        StageName: '$default',
        AutoDeploy: true,
        AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
        DefaultRouteSettings: {
          ThrottlingRateLimit: Match.anyValue(),
          ThrottlingBurstLimit: Match.anyValue(),
        },
      });
    }
  });
});
