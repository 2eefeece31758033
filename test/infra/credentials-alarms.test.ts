/**
 * What tells the alarm topic when someone reaches for callers' credentials, over the synthesized
 * templates: the rules on CloudTrail's records of the credentials key's and the credential
 * functions' calls, and their target; the alarm topic's key and policy, which trust CloudWatch and
 * EventBridge for this deployment's alarms and rules only.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { settingsOf } from '#infra/cdk/settings';
import { dev, keyPolicy, synthesizeKeys, type Template } from './keys-world.ts';
import { functionsByHandler, resourcesOf, type Statement, type Synthesized, text } from './synth.ts';

beforeAll(() => synthesizeKeys({ withNamedRole: false }));

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
