/**
 * What tells the alarm topic that someone reached for the credentials: EventBridge rules on the
 * CloudTrail records of the calls that would open them other than through a deposit's step.
 *   - on the credentials key: `PutKeyPolicy`, `CreateGrant`, `ReEncrypt*`, `DisableKey`,
 *     `ScheduleKeyDeletion` (made or refused: a refused one is an attempt);
 *   - on the functions that seal or open credentials: `UpdateFunctionCode`,
 *     `UpdateFunctionConfiguration` (new code, layers, environment or role);
 *   - on their roles: a function created or reconfigured with one of them (its code would run as the
 *     role the key's policy trusts).
 * EventBridge sees these only where a CloudTrail trail records management events in the stack's
 * region (docs/deploying.md, "Who can open credentials"). Each message names the call, who made it,
 * from where, and its CloudTrail event id; never the call's parameters (a policy, an environment).
 */
import * as events from 'aws-cdk-lib/aws-events';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { toTheAlarmTopic } from './alarm-topic.ts';

export const cloudTrailCall = 'AWS API Call via CloudTrail';

/** The key's calls that would open credentials, or make them unopenable, other than a step's. */
export const watchedKeyCalls = [
  'PutKeyPolicy',
  'CreateGrant',
  { prefix: 'ReEncrypt' },
  'DisableKey',
  'ScheduleKeyDeletion',
];

/** Lambda's CloudTrail names carry the API's version (`UpdateFunctionCode20150331v2`). */
export const watchedFunctionCalls = [
  { prefix: 'UpdateFunctionCode' },
  { prefix: 'UpdateFunctionConfiguration' },
];
export const watchedRoleCalls = [{ prefix: 'CreateFunction' }, { prefix: 'UpdateFunctionConfiguration' }];

/** What the message says: the call, on what, by whom, from where, when, and where to read the rest. */
function message(what: string): events.RuleTargetInput {
  const field = (path: string) => events.EventField.fromPath(path);
  return events.RuleTargetInput.fromText(
    `${field('$.detail.eventName')} ${what} by ${field('$.detail.userIdentity.arn')} from ` +
      `${field('$.detail.sourceIPAddress')} at ${events.EventField.time} (CloudTrail event ` +
      `${field('$.detail.eventID')}, error ${field('$.detail.errorCode')}). Unless it was a deploy of ` +
      'this service, treat it as an attempt on users’ credentials: docs/security.md.',
  );
}

export interface KeyWatchProps {
  prefix: string;
  key: kms.IKey;
  topic: sns.ITopic;
}

/** The rule on the credentials key's administration and re-encryption. */
export function watchTheCredentialsKey(scope: Construct, id: string, props: KeyWatchProps): events.Rule {
  return new events.Rule(scope, id, {
    ruleName: `${props.prefix}-credentials-key-calls`,
    description:
      'PutKeyPolicy, CreateGrant, ReEncrypt*, DisableKey or ScheduleKeyDeletion on the credentials key',
    eventPattern: {
      source: ['aws.kms'],
      detailType: [cloudTrailCall],
      detail: {
        eventSource: ['kms.amazonaws.com'],
        eventName: watchedKeyCalls,
        resources: { ARN: [props.key.keyArn] },
      },
    },
    targets: [toTheAlarmTopic(props.topic, message('on the credentials key'))],
  });
}

export interface FunctionsWatchProps {
  prefix: string;
  /** The functions that seal or open credentials, with their roles. */
  functions: { function: lambda.IFunction; role: iam.IRole }[];
  topic: sns.ITopic;
}

/** The rules on the code, configuration and roles of the functions that seal or open credentials. */
export function watchTheCredentialFunctions(
  scope: Construct,
  id: string,
  props: FunctionsWatchProps,
): events.Rule[] {
  // A function is named by its name, its ARN or its partial ARN (`<account>:function:<name>`).
  const names = props.functions.flatMap(({ function: fn }) => [
    fn.functionName,
    { suffix: `:function:${fn.functionName}` },
  ]);
  const changed = new events.Rule(scope, `${id}Changed`, {
    ruleName: `${props.prefix}-credential-functions-changed`,
    description: 'New code or configuration of a function that seals or opens credentials',
    eventPattern: {
      source: ['aws.lambda'],
      detailType: [cloudTrailCall],
      detail: {
        eventSource: ['lambda.amazonaws.com'],
        eventName: watchedFunctionCalls,
        requestParameters: { functionName: names },
      },
    },
    targets: [toTheAlarmTopic(props.topic, message('on a function that seals or opens credentials'))],
  });
  const roleGiven = new events.Rule(scope, `${id}RoleGiven`, {
    ruleName: `${props.prefix}-credential-roles-given`,
    description:
      'A function created or reconfigured with the role of a function that seals or opens credentials',
    eventPattern: {
      source: ['aws.lambda'],
      detailType: [cloudTrailCall],
      detail: {
        eventSource: ['lambda.amazonaws.com'],
        eventName: watchedRoleCalls,
        requestParameters: { role: props.functions.map(({ role }) => role.roleArn) },
      },
    },
    targets: [
      toTheAlarmTopic(
        props.topic,
        message('giving a function the role of one that seals or opens credentials'),
      ),
    ],
  });
  return [changed, roleGiven];
}
