/**
 * Who may seal and who may open callers' credentials, and who may change that. The functions that
 * do (their grants say `credentials: 'seal' | 'open'`) get roles of these names, and the credentials
 * key's policy allows each use only to those roles, pinned by their exact ARNs, with the vault's
 * encryption context. No account-wide `kms:*`: the key-admin role administers the key
 * (`key-admin.ts`). Explicit denies cover every other principal, whatever IAM gives it: nobody but
 * the openers decrypts or re-encrypts (a re-encryption to a key of one's own would open every sealed
 * credential), and nobody but the key-admin role creates a grant or writes the policy.
 */

import type { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { credentialsKeyContext } from '#shared/adapters/credential-vault';
import { administeredBy } from './key-admin.ts';
import { functionsOf } from './settings.ts';

export type CredentialsUse = 'seal' | 'open';

/** IAM role names are at most 64 characters. */
const MAX_ROLE_NAME = 64;

/** The role name of a function that seals or opens credentials. */
export function credentialsRoleName(prefix: string, use: CredentialsUse, handlerName: string): string {
  const name = `${prefix}-creds-${use}-${handlerName}`;
  if (name.length > MAX_ROLE_NAME) throw new Error(`role name ${name} is longer than ${MAX_ROLE_NAME}`);
  return name;
}

/** The exact ARNs of the roles of the functions that `use` the credentials key (`settings.ts`). */
export function rolesThatMay(stack: Stack, prefix: string, use: CredentialsUse): string[] {
  return functionsOf('deposits')
    .filter((settings) => settings.credentialsKey === use)
    .map(
      (settings) =>
        `arn:${stack.partition}:iam::${stack.account}:role/${credentialsRoleName(prefix, use, settings.name)}`,
    );
}

/** What only the openers may do with the key, whatever IAM says. */
export const openersOnly = ['kms:Decrypt', 'kms:ReEncrypt*'];
/** What only the key-admin role may do with the key, whatever IAM says. */
export const keyAdminOnly = ['kms:CreateGrant', 'kms:PutKeyPolicy'];

/**
 * No use of the key but the vault's: its data keys carry this encryption context (each deposit's
 * binding is the vault's own, in the key it derives from the data key).
 */
export const withTheVaultsContext = {
  StringEquals: { 'kms:EncryptionContext:purpose': credentialsKeyContext.purpose },
};

/**
 * The credentials key's policy: the key-admin role `admin` administers it; the sealers generate data
 * keys and the openers decrypt, each with the vault's context; nobody else decrypts, re-encrypts,
 * grants or rewrites the policy. (The previous sealed form's data keys, with a `depositId` context,
 * have no allowance left: their reader went with the form `v2`.)
 */
export function credentialsKeyPolicy(stack: Stack, prefix: string, admin: string): iam.PolicyDocument {
  const account = new iam.AccountRootPrincipal();
  const sealers = rolesThatMay(stack, prefix, 'seal');
  const openers = rolesThatMay(stack, prefix, 'open');
  return new iam.PolicyDocument({
    statements: [
      ...administeredBy(admin),
      new iam.PolicyStatement({
        sid: 'SealedByTheSealersOnly',
        principals: [account],
        actions: ['kms:GenerateDataKey'],
        resources: ['*'],
        conditions: { ArnEquals: { 'aws:PrincipalArn': sealers }, ...withTheVaultsContext },
      }),
      new iam.PolicyStatement({
        sid: 'OpenedByTheOpenersOnly',
        principals: [account],
        actions: ['kms:Decrypt'],
        resources: ['*'],
        conditions: { ArnEquals: { 'aws:PrincipalArn': openers }, ...withTheVaultsContext },
      }),
      new iam.PolicyStatement({
        sid: 'NobodyElseOpens',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: openersOnly,
        resources: ['*'],
        conditions: { ArnNotEquals: { 'aws:PrincipalArn': openers } },
      }),
      new iam.PolicyStatement({
        sid: 'NobodyElseGrantsOrRewritesThePolicy',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: keyAdminOnly,
        resources: ['*'],
        conditions: { ArnNotEquals: { 'aws:PrincipalArn': admin } },
      }),
    ],
  });
}
