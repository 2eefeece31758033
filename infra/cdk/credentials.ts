/**
 * Who may seal and who may open callers' credentials. The functions that do (their grants say
 * `credentials: 'seal' | 'open'`) get roles named by these patterns, and the credentials key's
 * policy allows each use only to roles of its pattern, with the vault's encryption context:
 * no account-wide `kms:*`, so no administrator or power user opens a user's bank token by having
 * `kms:Decrypt` in an IAM policy; an explicit deny covers every other principal.
 */

import type { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { credentialsKeyContext } from '#shared/adapters/credential-vault';

export type CredentialsUse = 'seal' | 'open';

/** IAM role names are at most 64 characters. */
const MAX_ROLE_NAME = 64;

/** The role name of a function that seals or opens credentials. */
export function credentialsRoleName(prefix: string, use: CredentialsUse, handlerName: string): string {
  const name = `${prefix}-creds-${use}-${handlerName}`;
  if (name.length > MAX_ROLE_NAME) throw new Error(`role name ${name} is longer than ${MAX_ROLE_NAME}`);
  return name;
}

/** The ARN pattern of every role that may `use` the credentials key. */
function rolesThatMay(stack: Stack, prefix: string, use: CredentialsUse): string {
  return `arn:${stack.partition}:iam::${stack.account}:role/${prefix}-creds-${use}-*`;
}

/** The actions that administer a key, without using it. */
const administration = [
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

/**
 * No use of the key but the vault's: its data keys carry this encryption context (each deposit's
 * binding is the vault's own, in the key it derives from the data key).
 */
export const withTheVaultsContext = {
  StringEquals: { 'kms:EncryptionContext:purpose': credentialsKeyContext.purpose },
};

/**
 * The data keys of the previous sealed form (the AWS Encryption SDK's, before issue 22), which
 * deposits in flight at a deploy may hold: each bound to its deposit by the context `depositId`, with
 * no `purpose`. Decrypted only, by the openers, never generated, for one release: this goes with that
 * form's reader (`shared/adapters/encryption-sdk-message.ts`; docs/deploying.md says when).
 */
export const withThePreviousFormsContext = { Null: { 'kms:EncryptionContext:depositId': 'false' } };

/**
 * The credentials key's policy: the account administers it; the sealers generate data keys and the
 * openers decrypt, each with the vault's context (the openers also the previous form's, with its
 * deposit's); nobody else decrypts, whatever IAM says.
 */
export function credentialsKeyPolicy(stack: Stack, prefix: string): iam.PolicyDocument {
  const account = new iam.AccountRootPrincipal();
  return new iam.PolicyDocument({
    statements: [
      new iam.PolicyStatement({
        sid: 'AdministeredByTheAccount',
        principals: [account],
        actions: administration,
        resources: ['*'],
      }),
      new iam.PolicyStatement({
        sid: 'SealedByTheSealersOnly',
        principals: [account],
        actions: ['kms:GenerateDataKey'],
        resources: ['*'],
        conditions: {
          ArnLike: { 'aws:PrincipalArn': rolesThatMay(stack, prefix, 'seal') },
          ...withTheVaultsContext,
        },
      }),
      new iam.PolicyStatement({
        sid: 'OpenedByTheOpenersOnly',
        principals: [account],
        actions: ['kms:Decrypt'],
        resources: ['*'],
        conditions: {
          ArnLike: { 'aws:PrincipalArn': rolesThatMay(stack, prefix, 'open') },
          ...withTheVaultsContext,
        },
      }),
      new iam.PolicyStatement({
        sid: 'OpenedThePreviousFormByTheOpenersOnly',
        principals: [account],
        actions: ['kms:Decrypt'],
        resources: ['*'],
        conditions: {
          ArnLike: { 'aws:PrincipalArn': rolesThatMay(stack, prefix, 'open') },
          ...withThePreviousFormsContext,
        },
      }),
      new iam.PolicyStatement({
        sid: 'NobodyElseOpens',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['kms:Decrypt'],
        resources: ['*'],
        conditions: { ArnNotLike: { 'aws:PrincipalArn': rolesThatMay(stack, prefix, 'open') } },
      }),
    ],
  });
}
