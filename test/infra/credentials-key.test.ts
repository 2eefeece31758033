/**
 * Who can open callers' credentials in AWS, over the synthesized templates: the credentials key's
 * policy (the key-admin role administers it; the root keeps only what avoids a lockout, for that
 * role; explicit denies of Decrypt and ReEncrypt* to all but the openers, of CreateGrant and
 * PutKeyPolicy to all but the key-admin role, each role pinned by its ARN), and the roles of the
 * functions that seal and open, named so by the stack and by no other.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { settingsOf } from '#infra/cdk/settings';
import { credentialsKeyContext } from '#shared/adapters/credential-vault';
import { deployRole, dev, keyPolicy, named, namedRole, synthesizeKeys } from './keys-world.ts';
import { actionsOf, functionsByHandler, type Statement, type Synthesized, text } from './synth.ts';

beforeAll(() => synthesizeKeys());

const credentialsKey = (synthesized: Synthesized) =>
  keyPolicy(synthesized.templates.stateful, /credentials/) as (Statement & {
    Sid?: string;
    Principal?: unknown;
  })[];

const root = { AWS: { 'Fn::Join': ['', ['arn:aws:iam::', { Ref: 'AWS::AccountId' }, ':root']] } };

/** The exact ARNs of the roles of the functions that `use` the key, from the stateless template. */
function rolesThat(synthesized: Synthesized, use: 'seal' | 'open') {
  const names = [...functionsByHandler(synthesized.templates.stateless)]
    .filter(([handler]) => settingsOf(handler).credentialsKey === use)
    .map(([handler]) => `${synthesized.deployment.config.prefix}-creds-${use}-${settingsOf(handler).name}`);
  return names.map((name) => ({
    'Fn::Join': ['', ['arn:aws:iam::', { Ref: 'AWS::AccountId' }, `:role/${name}`]],
  }));
}

describe('the credentials key', () => {
  it('is administered by the key-admin role alone: the deploy role by default, or the one named in context', () => {
    for (const [synthesized, admin] of [
      [dev, deployRole],
      [named, namedRole],
    ] as const) {
      const statements = credentialsKey(synthesized);
      const administering = statements.filter(
        (statement) => statement.Sid === 'AdministeredByTheKeyAdminRole',
      );
      expect(administering).toEqual([
        expect.objectContaining({ Effect: 'Allow', Principal: { AWS: admin }, Resource: '*' }),
      ]);
      expect(actionsOf(administering)).toEqual(
        expect.arrayContaining(['kms:Put*', 'kms:Create*', 'kms:ScheduleKeyDeletion', 'kms:Disable*']),
      );
      // The root: only what avoids a lockout, and only for that role.
      const rootStatements = statements.filter((statement) => text(statement.Principal) === text(root));
      const unconditioned = rootStatements.filter((statement) => statement.Condition === undefined);
      expect(unconditioned).toEqual([]);
      const lockout = rootStatements.filter(
        (statement) => statement.Sid === 'KeptAdministrableByTheKeyAdminRoleOnly',
      );
      expect(lockout).toEqual([
        expect.objectContaining({
          Effect: 'Allow',
          Action: ['kms:DescribeKey', 'kms:GetKeyPolicy', 'kms:PutKeyPolicy'],
          Condition: { ArnEquals: { 'aws:PrincipalArn': admin } },
        }),
      ]);
      // No account-wide kms:*, and no statement of the root that administers beyond that.
      expect(actionsOf(statements)).not.toContain('kms:*');
      const rootActions = actionsOf(rootStatements.filter((statement) => statement !== lockout[0]));
      expect(rootActions.sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
    }
  });

  it('denies Decrypt and ReEncrypt* to all but the openers, CreateGrant and PutKeyPolicy to all but the key-admin role', () => {
    for (const [synthesized, admin] of [
      [dev, deployRole],
      [named, namedRole],
    ] as const) {
      const denies = credentialsKey(synthesized).filter((statement) => statement.Effect === 'Deny');
      const openers = rolesThat(synthesized, 'open');
      expect(openers).toHaveLength(4);
      expect(denies).toEqual([
        expect.objectContaining({
          Principal: { AWS: '*' },
          Action: ['kms:Decrypt', 'kms:ReEncrypt*'],
          Resource: '*',
          Condition: { ArnNotEquals: { 'aws:PrincipalArn': openers } },
        }),
        expect.objectContaining({
          Principal: { AWS: '*' },
          Action: ['kms:CreateGrant', 'kms:PutKeyPolicy'],
          Resource: '*',
          Condition: { ArnNotEquals: { 'aws:PrincipalArn': admin } },
        }),
      ]);
    }
  });

  it('lets the sealers generate and the openers decrypt, pinned by ARN, with the vault’s context', () => {
    const statements = credentialsKey(dev);
    const allowing = (action: string) =>
      statements.filter(
        (statement) => statement.Effect === 'Allow' && actionsOf([statement]).includes(action),
      );
    const context = { StringEquals: { 'kms:EncryptionContext:purpose': credentialsKeyContext.purpose } };
    const openers = rolesThat(dev, 'open');
    const sealers = rolesThat(dev, 'seal');

    // The creates, and whatever else seals (its line of reach.ts says `credentials: 'seal'`).
    expect(text(sealers)).toMatch(/creds-seal-deposits-create"/);
    expect(text(sealers)).toMatch(/creds-seal-sources-create"/);
    expect(allowing('kms:GenerateDataKey').map((statement) => statement.Condition)).toEqual([
      { ArnEquals: { 'aws:PrincipalArn': sealers }, ...context },
    ]);
    // The vault's data keys only: the Encryption SDK's (a `depositId` context) have no reader left.
    expect(allowing('kms:Decrypt').map((statement) => statement.Condition)).toEqual([
      { ArnEquals: { 'aws:PrincipalArn': openers }, ...context },
    ]);
    // No role name pattern anywhere: a role created later with a matching name opens nothing.
    expect(text(statements)).not.toMatch(/ArnLike|ArnNotLike|creds-[a-z]+-\*/);
    // The roles are the functions' own, named so by the stack; no other role is.
    for (const [handler, fn] of functionsByHandler(dev.templates.stateless)) {
      const roleRef = fn.resource.Properties?.Role as { 'Fn::GetAtt': [string] } | undefined;
      const roleId = roleRef?.['Fn::GetAtt'][0] ?? expect.fail(`${handler} has no role`);
      const role = dev.templates.stateless.findResources('AWS::IAM::Role')[roleId];
      const use = settingsOf(handler).credentialsKey;
      const name = `${dev.deployment.config.prefix}-creds-${use}-${settingsOf(handler).name}`;
      expect(role?.Properties?.RoleName, handler).toEqual(use ? name : undefined);
    }
  });
});
