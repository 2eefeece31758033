/**
 * The deposits table's own key, over the synthesized templates: the table encrypted with it, its
 * policy administered by the key-admin role (the deploy role by default, or the one named in
 * context) and used through DynamoDB only, by this account's principals; kept when prod's stack is
 * deleted. Prod with a key-admin role of its own leaves cdk-nag nothing to report.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { deployRole, dev, keyPolicy, named, namedRole, synthesizeKeys } from './keys-world.ts';
import { actionsOf, nagFindings, resourcesOf, type Statement, text } from './synth.ts';

beforeAll(() => synthesizeKeys());

describe('the deposits table', () => {
  it('is encrypted with a key of its own, administered by the key-admin role and used through DynamoDB only', () => {
    for (const [synthesized, admin] of [
      [dev, deployRole],
      [named, namedRole],
    ] as const) {
      const template = synthesized.templates.stateful;
      const [keyId] =
        resourcesOf(template, 'AWS::KMS::Key').find(([, key]) =>
          String(key.Properties?.Description).includes('deposits table'),
        ) ?? expect.fail('no table key');
      template.hasResourceProperties('AWS::DynamoDB::Table', {
        SSESpecification: {
          SSEEnabled: true,
          SSEType: 'KMS',
          KMSMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] },
        },
      });
      const statements = keyPolicy(template, /deposits table/) as (Statement & {
        Principal?: unknown;
        Sid?: string;
      })[];
      expect(
        statements.find((statement) => statement.Sid === 'AdministeredByTheKeyAdminRole')?.Principal,
      ).toEqual({
        AWS: admin,
      });
      const anyone = statements.filter((statement) => text(statement.Principal) === text({ AWS: '*' }));
      expect(anyone).toEqual([
        expect.objectContaining({
          Condition: {
            StringEquals: {
              'kms:ViaService': expect.anything(),
              'kms:CallerAccount': { Ref: 'AWS::AccountId' },
            },
          },
        }),
      ]);
      expect(text(anyone[0]?.Condition)).toContain('dynamodb.');
      expect(actionsOf(statements)).not.toContain('kms:*');
      template.hasResource('AWS::KMS::Key', {
        Properties: Match.objectLike({ Description: Match.stringLikeRegexp('deposits table') }),
        DeletionPolicy: synthesized === named ? 'Retain' : 'Delete',
      });
    }
    expect(nagFindings(named.deployment)).toEqual([]);
  });
});
