/**
 * One name per handler (`HandlerName`, `shared/topology.ts`): the topology, the lines of
 * `shared/deposits/reach.ts`, the CDK settings and the APIs' contracts all name the same handlers,
 * each by that name, and its module is the one the name gives. A route without its line or its
 * settings, a line or setting of a handler the topology lacks, or a contract operation without its
 * handler fails here.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiReservedConcurrency, depositsRouteThrottle, functionSettings } from '#infra/cdk/settings';
import { contracts } from '#shared/contracts/contracts';
import { reach } from '#shared/deposits/reach';
import {
  type ApiSpec,
  depositsApi,
  type HandlerName,
  handlerFile,
  operatorApi,
  outbox,
  queues,
  sandboxApi,
  sweeper,
} from '#shared/topology';

const root = join(import.meta.dirname, '..', '..');
const apis: ApiSpec[] = [depositsApi, operatorApi, sandboxApi];
const apiHandlers = (api: ApiSpec) => [...api.routes.map((route) => route.handler), api.defaultHandler];
/** The orchestrator's handlers: its two APIs, its queues' consumers, the outbox relay and the sweeper. */
const orchestrator: HandlerName[] = [
  ...apiHandlers(depositsApi),
  ...apiHandlers(operatorApi),
  ...Object.values(queues).map((spec) => spec.handler),
  outbox.handler,
  sweeper.handler,
];
const topology: HandlerName[] = [...orchestrator, ...apiHandlers(sandboxApi)];
const sorted = (names: Iterable<string>) => [...names].sort();

function modules(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? modules(join(folder, entry.name))
      : entry.name.endsWith('.ts')
        ? [relative(root, join(folder, entry.name))]
        : [],
  );
}

describe('one name per handler', () => {
  it('the topology names each handler once, and its module is the one its name gives', () => {
    expect(sorted(new Set(topology))).toEqual(sorted(topology));
    for (const name of topology) {
      expect(name, name).toMatch(/^[a-z]+-[a-z0-9-]+$/);
      expect(existsSync(join(root, handlerFile(name))), handlerFile(name)).toBe(true);
    }
    // Every module of functions/ is a handler of the topology.
    expect(sorted(modules(join(root, 'functions')))).toEqual(sorted(topology.map(handlerFile)));
  });

  it('reach.ts has a line for each handler of the orchestrator, and for no other', () => {
    expect(sorted(Object.keys(reach))).toEqual(sorted(orchestrator));
  });

  it('the CDK settings have an entry for each handler of the topology, and for no other', () => {
    expect(sorted(functionSettings.keys())).toEqual(sorted(topology));
    for (const [name, settings] of functionSettings) {
      expect(settings.name, name).toBe(name);
      expect(settings.file, name).toBe(handlerFile(name));
      expect(settings.component, name).toBe(name in reach ? 'deposits' : 'sandbox');
    }
    // The settings by name or route name handlers and routes the topology has.
    const apiFunctions = [...apiHandlers(depositsApi), ...apiHandlers(operatorApi)];
    for (const name of Object.keys(apiReservedConcurrency)) expect(apiFunctions, name).toContain(name);
    const depositsRoutes = depositsApi.routes.map((route) => `${route.method} ${route.path}`);
    expect(sorted(Object.keys(depositsRouteThrottle))).toEqual(sorted(depositsRoutes));
  });

  it("each API's contract describes its routes, each operation one the topology gives a handler", () => {
    expect(sorted(Object.keys(contracts))).toEqual(sorted(apis.map((api) => api.name)));
    for (const api of apis) {
      const contract = contracts[api.name] ?? expect.fail(`no contract of the ${api.name} API`);
      expect(contract.api).toBe(api.name);
      const operations = contract.routes.map((route) => `${route.method} ${route.path}`);
      const routes = api.routes.map((route) => `${route.method} ${route.path}`);
      expect(sorted(operations), api.name).toEqual(sorted(routes));
    }
  });
});
