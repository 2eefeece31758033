/**
 * The webhook signing secrets the notifier signs with: the current one, and while a rotation
 * overlaps, the previous one too (each delivery then carries a signature of each, and a receiver
 * holding either verifies it; docs/deploying.md, "The webhook signing secret").
 *
 * Locally (or wherever the values are given): `WEBHOOK_SECRET`, and `WEBHOOK_PREVIOUS_SECRET` while
 * it is set. In AWS, the Secrets Manager secret `WEBHOOK_SECRET_ARN`: its current version
 * (`AWSCURRENT`), and its previous version (`AWSPREVIOUS`, which Secrets Manager keeps when a new value
 * is put) while it has one; the operator ends the overlap by taking that label off. Read once, when
 * the notifier starts.
 */
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';

export type SecretStage = 'AWSCURRENT' | 'AWSPREVIOUS';
/** A version of a secret by its stage: its value, or undefined when no version has that stage. */
export type ReadSecretVersion = (arn: string, stage: SecretStage) => Promise<string | undefined>;

export interface WebhookSecretsConfig {
  WEBHOOK_URL?: string | undefined;
  WEBHOOK_SECRET?: string | undefined;
  WEBHOOK_PREVIOUS_SECRET?: string | undefined;
  WEBHOOK_SECRET_ARN?: string | undefined;
}

/** Secrets Manager, through Powertools: each stage fetched (its cache is by name, not by stage). */
export const readSecretVersion: ReadSecretVersion = async (arn, stage) => {
  try {
    const value = await getSecret(arn, { sdkOptions: { VersionStage: stage }, forceFetch: true });
    return typeof value === 'string' ? value : undefined;
  } catch (error) {
    // A secret never rotated has no AWSPREVIOUS: no previous secret, not an error.
    const cause = (error as { cause?: { name?: string } }).cause;
    if (stage === 'AWSPREVIOUS' && cause?.name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
};

/** The secrets to sign with, the current one first; none without a webhook. */
export async function webhookSigningSecrets(
  config: WebhookSecretsConfig,
  read: ReadSecretVersion = readSecretVersion,
): Promise<string[]> {
  if (!config.WEBHOOK_URL) return [];
  if (config.WEBHOOK_SECRET || !config.WEBHOOK_SECRET_ARN) {
    return distinct([config.WEBHOOK_SECRET, config.WEBHOOK_PREVIOUS_SECRET]);
  }
  const current = await read(config.WEBHOOK_SECRET_ARN, 'AWSCURRENT');
  if (!current) throw new Error('WEBHOOK_SECRET_ARN: the secret has no value');
  const previous = await read(config.WEBHOOK_SECRET_ARN, 'AWSPREVIOUS');
  return distinct([current, previous]);
}

function distinct(secrets: (string | undefined)[]): string[] {
  return [...new Set(secrets.filter((secret): secret is string => Boolean(secret)))];
}
