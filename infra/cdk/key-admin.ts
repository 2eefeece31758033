/**
 * Who administers the service's keys (the credentials key, the deposits table's key): one named
 * role, the key-admin role (CDK context `keyAdminRole`), by default the role CloudFormation deploys
 * with: the CDK bootstrap's execution role, which creates the keys and writes their policies on every
 * deploy. Nobody else in the account administers them through IAM: no account-wide `kms:*`.
 *
 * The account root keeps only what AWS needs to avoid a lockout, and only for that role: a key policy
 * that names a role as its principal stops matching it if the role is deleted and created again (the
 * policy holds the old role's unique id), so the root statement, conditioned on the role's ARN, lets
 * the role of that name write the policy again. KMS refuses a policy that its writer could not write
 * again (its lockout safety check), so a `keyAdminRole` that is not the role CloudFormation deploys
 * with fails the deploy instead of locking the keys.
 */
import { DefaultStackSynthesizer, Fn, type Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { DeploymentConfigError } from './config.ts';

/** The actions that administer a key, without using it. */
export const administration = [
  'kms:Create*',
  'kms:Describe*',
  'kms:Enable*',
  'kms:List*',
  'kms:Put*',
  'kms:Update*',
  'kms:Revoke*',
  'kms:Disable*',
  'kms:Get*',
  'kms:Delete*',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:ScheduleKeyDeletion',
  'kms:CancelKeyDeletion',
  'kms:RotateKeyOnDemand',
];

/** What the account root keeps, for the key-admin role only: writing the policy again. */
export const lockoutAvoidance = ['kms:PutKeyPolicy', 'kms:GetKeyPolicy', 'kms:DescribeKey'];

/**
 * The key-admin role's ARN: `configured` (a role name in this account, or an ARN), else the
 * CloudFormation execution role of the stack's synthesizer (the CDK bootstrap's, qualifier included).
 */
export function keyAdministrator(stack: Stack, configured?: string): string {
  if (configured) {
    return configured.startsWith('arn:')
      ? configured
      : `arn:${stack.partition}:iam::${stack.account}:role/${configured}`;
  }
  const synthesizer = stack.synthesizer;
  if (!(synthesizer instanceof DefaultStackSynthesizer)) {
    throw new DeploymentConfigError(
      'keyAdminRole: required with this stack synthesizer, which names no CloudFormation execution role',
    );
  }
  // `${AWS::Partition}`, `${AWS::AccountId}` and `${AWS::Region}` in it, as the bootstrap names it.
  return Fn.sub(synthesizer.cloudFormationExecutionRoleArn);
}

/** The key policy's statements that give administration to the key-admin role `admin`, and to nobody else. */
export function administeredBy(admin: string): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      sid: 'AdministeredByTheKeyAdminRole',
      principals: [new iam.ArnPrincipal(admin)],
      actions: administration,
      resources: ['*'],
    }),
    new iam.PolicyStatement({
      sid: 'KeptAdministrableByTheKeyAdminRoleOnly',
      principals: [new iam.AccountRootPrincipal()],
      actions: lockoutAvoidance,
      resources: ['*'],
      conditions: { ArnEquals: { 'aws:PrincipalArn': admin } },
    }),
  ];
}

/**
 * The deposits table's key: administered by the key-admin role; used only through DynamoDB, by the
 * principals of this account that DynamoDB lets read or write the table (as AWS's own DynamoDB key
 * is), and described by DynamoDB itself. What a function may do with the table stays its IAM grant.
 */
export function tableKeyPolicy(stack: Stack, admin: string): iam.PolicyDocument {
  return new iam.PolicyDocument({
    statements: [
      ...administeredBy(admin),
      new iam.PolicyStatement({
        sid: 'UsedThroughDynamoDBOfThisAccountOnly',
        principals: [new iam.AnyPrincipal()],
        actions: [
          'kms:Encrypt',
          'kms:Decrypt',
          'kms:ReEncrypt*',
          'kms:GenerateDataKey*',
          'kms:CreateGrant',
          'kms:DescribeKey',
        ],
        resources: ['*'],
        conditions: {
          StringEquals: {
            'kms:ViaService': `dynamodb.${stack.region}.${stack.urlSuffix}`,
            'kms:CallerAccount': stack.account,
          },
        },
      }),
      new iam.PolicyStatement({
        sid: 'DescribedByDynamoDB',
        principals: [new iam.ServicePrincipal('dynamodb.amazonaws.com')],
        actions: ['kms:Describe*', 'kms:Get*', 'kms:List*'],
        resources: ['*'],
      }),
    ],
  });
}
