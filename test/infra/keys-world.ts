/**
 * What the keys' files share: dev, and prod with a key-admin role of its own, synthesized once per
 * worker (`synth.ts` keeps each), and the ways to read a key's policy and to name its key-admin role.
 */
import { expect } from 'vitest';
import { configurations, resourcesOf, type Statement, type Synthesized, synthesize } from './synth.ts';

export let dev: Synthesized;
export let named: Synthesized;

/**
 * Synthesizes dev and, unless the file asserts on dev alone, prod with a key-admin role of its own
 * (each once per process), for a file's `beforeAll`.
 */
export function synthesizeKeys({ withNamedRole = true } = {}) {
  dev = synthesize(configurations.devWithSandbox);
  // A key-admin role of one's own, by name, in prod.
  if (withNamedRole)
    named = synthesize({ ...configurations.prodWithoutSandbox, keyAdminRole: 'payments-key-admin' });
}

export type Template = Synthesized['templates']['stateful'];

export function keyPolicy(template: Template, description: RegExp): Statement[] {
  const keys = resourcesOf(template, 'AWS::KMS::Key').filter(([, key]) =>
    description.test(String(key.Properties?.Description)),
  );
  expect(keys).toHaveLength(1);
  const policy = keys[0]?.[1].Properties?.KeyPolicy as { Statement: Statement[] } | undefined;
  return policy?.Statement ?? expect.fail(`no policy on the key ${description}`);
}

/** The CDK bootstrap's CloudFormation execution role, as the key policy names it by default. */
export const deployRole = {
  'Fn::Sub': [
    'arn:',
    '{AWS::Partition}:iam::',
    '{AWS::AccountId}:role/cdk-hnb659fds-cfn-exec-role-',
    '{AWS::AccountId}-us-east-1',
  ].join('$'),
};
export const namedRole = {
  'Fn::Join': ['', ['arn:aws:iam::', { Ref: 'AWS::AccountId' }, ':role/payments-key-admin']],
};
