/**
 * The owner digests (`OwnerDigests`): the keyed digests of callers' access tokens and user secrets,
 * under the owner key, built once per process. In AWS the key is the Secrets Manager secret that
 * OWNER_KEY_SECRET_ARN names, read at cold start; locally OWNER_KEY. Only the routes that take a
 * caller's token build them (and the local stack's tools, which key tokens as those routes do).
 */
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { ownerKeyConfig, ownerKeyFrom } from '#shared/config';
import type { OwnerDigests } from '#shared/deposits/ports/provider';
import { keyedDigests } from '#shared/secrets';

let loading: Promise<OwnerDigests> | undefined;
let configured: OwnerDigests | undefined;

/** The digests under the owner key: the secret's (AWS) or OWNER_KEY's; read once. */
export function ownerDigests(): Promise<OwnerDigests> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function load(): Promise<OwnerDigests> {
  const { OWNER_KEY_SECRET_ARN } = ownerKeyConfig();
  if (!OWNER_KEY_SECRET_ARN) return configuredOwnerDigests();
  return keyedDigests(ownerKeyFrom(await getSecret(OWNER_KEY_SECRET_ARN), 'OWNER_KEY_SECRET_ARN'));
}

/**
 * The digests under OWNER_KEY, with no secret to fetch: the local stack's (its routes' and its
 * tools': the crash points, the controls), whose key is in its environment.
 */
export function configuredOwnerDigests(): OwnerDigests {
  if (configured) return configured;
  const { OWNER_KEY } = ownerKeyConfig();
  if (!OWNER_KEY) throw new Error('Invalid configuration: OWNER_KEY: not set (only OWNER_KEY_SECRET_ARN is)');
  configured = keyedDigests(OWNER_KEY);
  return configured;
}
