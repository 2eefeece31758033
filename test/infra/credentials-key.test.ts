/**
 * Who can open callers' credentials in AWS, and what tells the alarm topic when someone reaches for
 * them (issue 33, item 1), over the synthesized templates: the credentials key's policy (the
 * key-admin role administers it; the root keeps only what avoids a lockout, for that role; explicit
 * denies of Decrypt and ReEncrypt* to all but the openers, of CreateGrant and PutKeyPolicy to all but
 * the key-admin role, each role pinned by its ARN); the rules on CloudTrail's records of the key's
 * and the credential functions' calls, and their target; the alarm topic's key and policy, which
 * trust CloudWatch and EventBridge for this deployment's alarms and rules only; the deposits table's
 * own key.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { settingsOf } from '#infra/cdk/settings';
import { credentialsKeyContext } from '#shared/adapters/credential-vault';
import {
  actionsOf,
  configurations,
  functionsByHandler,
  nagFindings,
  resourcesOf,
  type Statement,
  type Synthesized,
  synthesize,
  text,
} from './synth.ts';

let dev: Synthesized;
let named: Synthesized;
beforeAll(() => {
  dev = synthesize(configurations.devWithSandbox);
  // A key-admin role of one's own, by name, in prod.
  named = synthesize({ ...configurations.prodWithoutSandbox, keyAdminRole: 'payments-key-admin' });
});

type Template = Synthesized['templates']['stateful'];

function keyPolicy(template: Template, description: RegExp): Statement[] {
  const keys = resourcesOf(template, 'AWS::KMS::Key').filter(([, key]) =>
    description.test(String(key.Properties?.Description)),
  );
  expect(keys).toHaveLength(1);
  const policy = keys[0]?.[1].Properties?.KeyPolicy as { Statement: Statement[] } | undefined;
  return policy?.Statement ?? expect.fail(`no policy on the key ${description}`);
}

const credentialsKey = (synthesized: Synthesized) =>
  keyPolicy(synthesized.templates.stateful, /credentials/) as (Statement & {
    Sid?: string;
    Principal?: unknown;
  })[];

/** The CDK bootstrap's CloudFormation execution role, as the key policy names it by default. */
const deployRole = {
  'Fn::Sub': [
    'arn:',
    '{AWS::Partition}:iam::',
    '{AWS::AccountId}:role/cdk-hnb659fds-cfn-exec-role-',
    '{AWS::AccountId}-us-east-1',
  ].join('$'),
};
const namedRole = {
  'Fn::Join': ['', ['arn:aws:iam::', { Ref: 'AWS::AccountId' }, ':role/payments-key-admin']],
};
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

type Rule = { Properties: Record<string, unknown> };
const rulesOf = (template: Template) =>
  resourcesOf(template, 'AWS::Events::Rule').map(([id, rule]) => [id, rule as Rule] as const);
const alarmTopicRef = (synthesized: Synthesized) => {
  const [id] = resourcesOf(synthesized.templates.stateful, 'AWS::SNS::Topic')[0] ?? expect.fail('no topic');
  return id;
};

describe('the rules on CloudTrail’s records', () => {
  it('report PutKeyPolicy, CreateGrant, ReEncrypt*, DisableKey and ScheduleKeyDeletion on the credentials key', () => {
    const keyId = resourcesOf(dev.templates.stateful, 'AWS::KMS::Key').find(([, key]) =>
      String(key.Properties?.Description).includes('credentials'),
    )?.[0];
    const [, rule] =
      rulesOf(dev.templates.stateful).find(([id]) => id.startsWith('CredentialsKeyCalls')) ??
      expect.fail('no key rule');

    expect(rule.Properties).toMatchObject({
      Name: 'BankPayments-dev-credentials-key-calls',
      State: 'ENABLED',
      EventPattern: {
        source: ['aws.kms'],
        'detail-type': ['AWS API Call via CloudTrail'],
        detail: {
          eventSource: ['kms.amazonaws.com'],
          eventName: [
            'PutKeyPolicy',
            'CreateGrant',
            { prefix: 'ReEncrypt' },
            'DisableKey',
            'ScheduleKeyDeletion',
          ],
          resources: { ARN: [{ 'Fn::GetAtt': [keyId, 'Arn'] }] },
        },
      },
      Targets: [expect.objectContaining({ Arn: { Ref: alarmTopicRef(dev) } })],
    });
    // The message names the call, who made it and its CloudTrail id, never its parameters.
    const transformer = text(
      (rule.Properties.Targets as { InputTransformer: unknown }[])[0]?.InputTransformer,
    );
    expect(transformer).toMatch(/\$\.detail\.userIdentity\.arn/);
    expect(transformer).toMatch(/\$\.detail\.eventID/);
    expect(transformer).not.toMatch(/requestParameters/);
  });

  it('report new code or configuration of exactly the functions that seal or open credentials, and their roles given to another', () => {
    const functions = functionsByHandler(dev.templates.stateless);
    const credentialFunctions = [...functions].filter(([handler]) => settingsOf(handler).credentialsKey);
    // The two creates and the four steps that open, at least (anything else that seals too).
    expect(credentialFunctions.length).toBeGreaterThanOrEqual(6);
    const rules = rulesOf(dev.templates.stateless);
    const [, changed] =
      rules.find(([id]) => id.startsWith('CredentialFunctionCallsChanged')) ?? expect.fail('none');
    const [, given] =
      rules.find(([id]) => id.startsWith('CredentialFunctionCallsRoleGiven')) ?? expect.fail('none');

    expect(changed.Properties).toMatchObject({
      Name: 'BankPayments-dev-credential-functions-changed',
      EventPattern: {
        source: ['aws.lambda'],
        'detail-type': ['AWS API Call via CloudTrail'],
        detail: {
          eventSource: ['lambda.amazonaws.com'],
          eventName: [{ prefix: 'UpdateFunctionCode' }, { prefix: 'UpdateFunctionConfiguration' }],
        },
      },
    });
    const names = (
      changed.Properties.EventPattern as { detail: { requestParameters: { functionName: unknown[] } } }
    ).detail.requestParameters.functionName;
    // Each by its name, and by the end of its ARN or partial ARN.
    expect(names).toEqual(
      credentialFunctions.flatMap(([, { id }]) => [
        { Ref: id },
        { suffix: { 'Fn::Join': ['', [':function:', { Ref: id }]] } },
      ]),
    );
    expect(given.Properties).toMatchObject({
      Name: 'BankPayments-dev-credential-roles-given',
      EventPattern: {
        detail: { eventName: [{ prefix: 'CreateFunction' }, { prefix: 'UpdateFunctionConfiguration' }] },
      },
    });
    const roles = (given.Properties.EventPattern as { detail: { requestParameters: { role: unknown[] } } })
      .detail.requestParameters.role;
    expect(roles).toEqual(credentialFunctions.map(([, { resource }]) => resource.Properties?.Role));
    for (const rule of [changed, given]) {
      expect(text(rule.Properties.Targets)).toContain('AlarmTopic');
      expect(rule.Properties.Targets).toEqual([
        expect.objectContaining({ InputTransformer: expect.anything() }),
      ]);
    }
  });

  it('reach the alarm topic, which takes EventBridge’s messages from this deployment’s rules only', () => {
    const topicRules = [...rulesOf(dev.templates.stateful), ...rulesOf(dev.templates.stateless)].filter(
      ([, rule]) => text(rule.Properties.Targets).includes('AlarmTopic'),
    );
    expect(topicRules).toHaveLength(3);
    for (const [id, rule] of topicRules)
      expect(String(rule.Properties.Name), id).toMatch(/^BankPayments-dev-/);

    const [, policy] =
      resourcesOf(dev.templates.stateful, 'AWS::SNS::TopicPolicy')[0] ?? expect.fail('no policy');
    const document = policy.Properties?.PolicyDocument as { Statement: Statement[] } | undefined;
    const statements = (document?.Statement ?? []) as (Statement & { Principal?: unknown })[];
    const byService = (service: string) =>
      statements.filter((statement) => text(statement.Principal) === text({ Service: service }));
    expect(byService('events.amazonaws.com')).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'sns:Publish',
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: {
            'aws:SourceArn': {
              'Fn::Join': [
                '',
                ['arn:aws:events:us-east-1:', { Ref: 'AWS::AccountId' }, ':rule/BankPayments-dev-*'],
              ],
            },
          },
        },
      }),
    ]);
    expect(byService('cloudwatch.amazonaws.com')).toEqual([
      expect.objectContaining({ Condition: expect.objectContaining({ ArnLike: expect.anything() }) }),
    ]);
  });
});

describe('the alarm topic’s key', () => {
  const alarmSource = {
    StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
    ArnLike: {
      'aws:SourceArn': {
        'Fn::Join': [
          '',
          ['arn:aws:cloudwatch:us-east-1:', { Ref: 'AWS::AccountId' }, ':alarm:BankPayments-dev-*'],
        ],
      },
    },
  };

  it('trusts CloudWatch only for this account’s alarms of this deployment', () => {
    const statements = keyPolicy(dev.templates.stateful, /alarm topic/) as (Statement & {
      Principal?: unknown;
    })[];
    const cloudWatch = statements.filter((statement) =>
      text(statement.Principal).includes('cloudwatch.amazonaws.com'),
    );
    expect(cloudWatch).toEqual([
      expect.objectContaining({ Action: ['kms:Decrypt', 'kms:GenerateDataKey*'], Condition: alarmSource }),
    ]);
    // ... which are all of the alarms that tell the topic: their names carry the deployment's prefix.
    for (const template of [dev.templates.stateless, dev.templates.sandbox ?? expect.fail('no sandbox')]) {
      for (const [id, alarm] of resourcesOf(template, 'AWS::CloudWatch::Alarm')) {
        expect(text(alarm.Properties?.AlarmActions), id).toContain('AlarmTopic');
        expect(text(alarm.Properties?.AlarmName), id).toMatch(
          /^"BankPayments-dev-|^\{"Fn::Join":\["",\["BankPayments-dev-/,
        );
      }
    }
  });
});

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
