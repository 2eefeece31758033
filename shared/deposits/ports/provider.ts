/**
 * The provider and the secrets it takes: the provider's operations a step calls, the user's
 * credentials sealed for the steps, the caller's answers sealed until used, and the keyed digests a
 * token and a user secret are known by. No AWS here: `shared/adapters/` implements these.
 */
import type { ProviderClient, ProviderCredentials } from '#shared/provider/client';

export type DepositCredentials = ProviderCredentials;

/**
 * What a caller's access token and user secret are known by: a deposit's `ownerKey` (and so its
 * connection's leases, claims, idempotency records, list) and `readerKey` are their keyed digests
 * (an HMAC under a key the table does not hold), so that whoever reads the table, or a backup,
 * cannot confirm a guessed or leaked token against it. The routes that take a token use it.
 */
export interface OwnerDigests {
  /** The key of a token or user secret. */
  of(secret: string): string;
  /** Whether `stored` is the key of `secret`, compared in constant time (false for none). */
  matches(secret: string, stored: string | undefined): boolean;
}

/**
 * What a sealing holds: the user's provider credentials, or the caller's answers to the bank's
 * question. Bound into the sealing, so that one never opens as the other.
 */
export type SealPurpose = 'credentials' | 'answers';

export interface CredentialSealer {
  seal(purpose: SealPurpose, depositId: string, secret: unknown): Promise<string>;
}

export interface CredentialOpener {
  open<T>(purpose: SealPurpose, depositId: string, sealed: string): Promise<T>;
}

/** The provider's operations, by name; a step's context picks the ones it calls. */
export type Provider = Pick<
  ProviderClient,
  | 'getMetadata'
  | 'listBeneficiaries'
  | 'createBeneficiary'
  | 'createTransfer'
  | 'createAutoflowTransfer'
  | 'getOperation'
>;
