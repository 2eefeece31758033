/**
 * What the stacks' files share: both configurations synthesized once per worker (without bundling;
 * app.test.ts bundles), and the ways to find a route, a queue or a function's statements in them.
 */
import { expect } from 'vitest';
import { functionSettings } from '#infra/cdk/settings';
import { depositsApi, type HandlerName, queues } from '#shared/topology';
import {
  actionsOf,
  configurations,
  resourcesOf,
  type Statement,
  type Synthesized,
  statementsOfFunction,
  synthesize,
} from './synth.ts';

export let dev: Synthesized;
export let prod: Synthesized;

/** Synthesizes both configurations (once per process: `synth.ts` keeps each), for a file's `beforeAll`. */
export function synthesizeBoth() {
  dev = synthesize(configurations.devWithSandbox);
  prod = synthesize(configurations.prodWithoutSandbox);
}

/** The routes that take a caller's token (and user secret): they alone key it with the owner key. */
export const tokenRoutes = depositsApi.routes
  .filter((route) => /^\/v1\/(deposits|sources)\/(create|get|answer|list|cancel)$/.test(route.path))
  .map((route) => route.handler);

export const handlersOf = (component: 'deposits' | 'sandbox') =>
  [...functionSettings.values()].filter((settings) => settings.component === component);

export function logicalId(
  template: Synthesized['templates']['stateful'],
  type: string,
  match: (props: Record<string, unknown>) => boolean,
) {
  const found = resourcesOf(template, type).filter(([, resource]) => match(resource.Properties ?? {}));
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return (found[0] as [string, unknown])[0];
}

/** The logical id of a topology queue (or of its DLQ) in the stateful stack, by its name. */
export function queueId(key: string, which: 'Queue' | 'DeadLetterQueue', synthesized = dev): string {
  const spec = queues[key as keyof typeof queues];
  const name = `${synthesized.deployment.config.prefix}-${spec.localName}${which === 'Queue' ? '' : '-dlq'}`;
  return logicalId(synthesized.templates.stateful, 'AWS::SQS::Queue', (props) => props.QueueName === name);
}

/** A function's statements in the stateless stack, and in the sandbox's. */
export const statementsOf = (handler: HandlerName) => statementsOfFunction(dev.templates.stateless, handler);
export const sandboxStatementsOf = (handler: HandlerName) =>
  statementsOfFunction(dev.templates.sandbox ?? expect.fail('no sandbox'), handler);
export const route = (method: string, path: string) =>
  depositsApi.routes.find((candidate) => candidate.method === method && candidate.path === path)?.handler ??
  expect.fail(`no route ${method} ${path}`);
export const withAction = (statements: Statement[], action: string) =>
  statements.filter((statement) => actionsOf([statement]).includes(action));

/** The statements that allow sqs:SendMessage. */
export const sendingStatements = (statements: Statement[]) =>
  statements.filter((statement) => actionsOf([statement]).includes('sqs:SendMessage'));
