/**
 * The account's concurrency, shared so that a flood of API calls cannot starve the step consumers:
 * each API function (the deposits API's, the sources', the operator API's) has its reserved
 * concurrency, a cap, from settings or CDK context; the consumers take theirs from what is left,
 * each queue's event source mapping at most its `maxConcurrency`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readDeploymentConfig } from '#infra/cdk/config';
import {
  apiReservedConcurrency,
  consumersConcurrency,
  functionSettings,
  lambdaUnreservedMinimum,
  settingsOf,
} from '#infra/cdk/settings';
import { depositsApi, operatorApi, outbox, queues, sweeper } from '#shared/topology';
import {
  configurations,
  functionsByHandler,
  resourcesOf,
  type Synthesized,
  synthesize,
  text,
} from './synth.ts';

const read = (context: Record<string, unknown>) => readDeploymentConfig((key) => context[key], {});

const apiHandlers = [depositsApi, operatorApi].flatMap((api) => [
  ...api.routes.map((route) => route.handler),
  api.defaultHandler,
]);
const apiNames = apiHandlers.map((handler) => settingsOf(handler).name);
const sum = (values: Record<string, number>) => Object.values(values).reduce((a, b) => a + b, 0);

describe('reserved concurrency (settings and CDK context)', () => {
  it('caps every API function, and only those: the deposits, sources and operator routes and their $default', () => {
    expect(Object.keys(apiReservedConcurrency).sort()).toEqual([...apiNames].sort());
    for (const value of Object.values(apiReservedConcurrency)) {
      expect(Number.isInteger(value) && value > 0).toBe(true);
    }
  });

  it("fits an account's default 1,000: Lambda's 100 unreserved, the consumers' ceiling and room to spare", () => {
    const reserved = sum(apiReservedConcurrency);

    expect(reserved).toBe(270);
    expect(consumersConcurrency).toBe(
      Object.values(queues).reduce((total, spec) => total + spec.maxConcurrency, 0),
    );
    expect(1_000 - reserved - lambdaUnreservedMinimum).toBeGreaterThan(consumersConcurrency * 10);
  });

  it('defaults to the settings; context changes any function by name, and cdk.json may give an object', () => {
    const fromCli = read({ reservedConcurrency: '{"deposits-create":40,"operator-list":2}' });
    const fromJson = read({ reservedConcurrency: { 'deposits-get': 80 } });

    expect(read({}).reservedConcurrency).toEqual(apiReservedConcurrency);
    expect(fromCli.reservedConcurrency).toEqual({
      ...apiReservedConcurrency,
      'deposits-create': 40,
      'operator-list': 2,
    });
    expect(fromJson.reservedConcurrency['deposits-get']).toBe(80);
  });

  it('is turned off with `false` (an account whose quota is too small to reserve any)', () => {
    expect(read({ reservedConcurrency: 'false' }).reservedConcurrency).toEqual({});
    expect(read({ reservedConcurrency: false }).reservedConcurrency).toEqual({});
  });

  it('refuses a function that is not an API function, a count below 1, and JSON that does not parse', () => {
    expect(() => read({ reservedConcurrency: '{"steps-transfer":10}' })).toThrow(
      /reservedConcurrency: steps-transfer is not an API function \(deposits-create, /,
    );
    expect(() => read({ reservedConcurrency: '{"deposits-create":0}' })).toThrow(/reservedConcurrency/);
    expect(() => read({ reservedConcurrency: '{"deposits-create":2.5}' })).toThrow(/reservedConcurrency/);
    expect(() => read({ reservedConcurrency: '{deposits-create' })).toThrow(
      /reservedConcurrency: must be JSON/,
    );
  });

  it("refuses reservations that would leave the account less than Lambda's 100 and the consumers' ceiling", () => {
    const greedy = JSON.stringify({ 'deposits-create': 700 });

    expect(() => read({ reservedConcurrency: greedy })).toThrow(
      /reservedConcurrency: reserves 945 of accountConcurrency 1000/,
    );
    expect(
      read({ reservedConcurrency: greedy, accountConcurrency: '3000' }).reservedConcurrency,
    ).toMatchObject({
      'deposits-create': 700,
    });
    expect(() => read({ accountConcurrency: '200' })).toThrow(
      /reservedConcurrency: reserves 270 of accountConcurrency 200/,
    );
    expect(read({ accountConcurrency: '10', reservedConcurrency: 'false' }).reservedConcurrency).toEqual({});
  });
});

describe('reserved concurrency (synthesized)', () => {
  let dev: Synthesized;
  let changed: Synthesized;

  beforeAll(() => {
    dev = synthesize(configurations.devWithSandbox);
    changed = synthesize({
      ...configurations.prodWithoutSandbox,
      reservedConcurrency: JSON.stringify({ 'deposits-create': 60, 'operator-queues': 3 }),
    });
  });

  const reservedOf = (synthesized: Synthesized) =>
    new Map(
      [...functionsByHandler(synthesized.templates.stateless)].map(([handler, { resource }]) => [
        handler,
        resource.Properties?.ReservedConcurrentExecutions,
      ]),
    );

  it('each API function carries its ReservedConcurrentExecutions, by group', () => {
    const reserved = reservedOf(dev);
    const group = (api: typeof depositsApi) =>
      Object.fromEntries(
        [...api.routes.map((route) => route.handler), api.defaultHandler].map((handler) => [
          settingsOf(handler).name,
          reserved.get(handler),
        ]),
      );

    expect(group(depositsApi)).toEqual({
      'deposits-create': 25,
      'deposits-get': 50,
      'deposits-answer': 10,
      'deposits-list': 20,
      'deposits-cancel': 10,
      'sources-create': 10,
      'sources-get': 50,
      'sources-list': 10,
      'sources-cancel': 10,
      'deposits-health': 5,
      'deposits-not-found': 5,
    });
    expect(group(operatorApi)).toEqual({
      'operator-list': 10,
      'operator-get': 10,
      'operator-resolve': 5,
      'operator-cancel': 5,
      'operator-redrive': 5,
      'operator-deliveries': 5,
      'operator-resend': 5,
      'operator-stats': 5,
      'operator-queues': 10,
      'operator-not-found': 5,
    });
  });

  it('the consumers, the outbox relay, the sweeper and the sandbox reserve nothing: they share what is left', () => {
    const reserved = reservedOf(dev);
    const others = [...Object.values(queues).map((spec) => spec.handler), outbox.handler, sweeper.handler];

    for (const handler of others) expect(reserved.get(handler)).toBeUndefined();
    for (const [, { resource }] of functionsByHandler(dev.templates.sandbox ?? expect.fail('no sandbox'))) {
      expect(resource.Properties?.ReservedConcurrentExecutions).toBeUndefined();
    }
    expect(reserved.size).toBe(
      [...functionSettings.values()].filter((s) => s.component === 'deposits').length,
    );
  });

  it("each step queue's event source mapping runs at most its maxConcurrency consumers", () => {
    const mappings = resourcesOf(dev.templates.stateless, 'AWS::Lambda::EventSourceMapping').filter(
      ([, resource]) => !text(resource.Properties?.EventSourceArn).includes('StreamArn'),
    );

    expect(mappings).toHaveLength(Object.keys(queues).length);
    // 5 for each step queue and the notify queue, 2 (Lambda's least) for the outbox relay's.
    expect(mappings.map(([, mapping]) => mapping.Properties?.ScalingConfig)).toEqual(
      expect.arrayContaining(
        Object.values(queues).map((spec) => ({ MaximumConcurrency: spec.maxConcurrency })),
      ),
    );
    expect(Object.values(queues).map((spec) => spec.maxConcurrency)).toEqual([5, 5, 5, 5, 5, 5, 2]);
  });

  it('follows the context: a changed function takes its number, the others keep theirs', () => {
    const reserved = reservedOf(changed);

    expect(reserved.get(depositsApi.routes[0]?.handler ?? expect.fail('no route'))).toBe(60);
    expect(reserved.get('operator-queues')).toBe(3);
    expect(reserved.get('deposits-get')).toBe(50);
  });
});
