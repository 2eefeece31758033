/**
 * What the steps that call the provider, and the create route, are given besides the table, the
 * queues and the transitions: the credential vault, the provider, the wallet accounts.
 */

import { CredentialVault } from '#shared/adapters/credential-vault';
import { credentialsKey } from '#shared/adapters/credentials-key';
import { providerConfig, vaultConfig, walletsConfig } from '#shared/config';
import { walletAccounts, walletBook } from '#shared/deposits/model/wallets';
import { logger } from '#shared/logger';
import { ProviderClient } from '#shared/provider/client';
import { tracedFetch } from '#shared/tracing';

let vault: CredentialVault | undefined;

/**
 * One vault per process, so that its data keys are kept across invocations. Each data key it makes
 * or unwraps is logged by its id: with the id each sealed item records, an incident on one function
 * instance is scoped to the items sealed with the keys it held.
 */
export function credentialVault() {
  const config = vaultConfig();
  vault ??= new CredentialVault(
    credentialsKey({ kmsKeyArn: config.CREDENTIALS_KEY_ARN, localKey: config.LOCAL_ENCRYPTION_KEY }),
    { onDataKey: (dataKey, how) => logger.info(`data key ${how}`, { dataKey }) },
  );
  return vault;
}

export function providerClient() {
  const config = providerConfig();
  return new ProviderClient({
    baseUrl: config.PROVIDER_BASE_URL,
    timeoutMs: config.PROVIDER_TIMEOUT_MS,
    dialect: config.PROVIDER_DIALECT,
    autoflowAction: config.PROVIDER_AUTOFLOW_ACTION,
    // Each provider call a subsegment of its own, named by the call: `provider /v2/...`.
    fetch: tracedFetch((url) => `provider ${new URL(url).pathname}`),
  });
}

export function wallets() {
  const config = walletsConfig();
  return walletBook(walletAccounts(config.WALLET_ACCOUNTS), config.DEFAULT_WALLET_ACCOUNT_ID);
}
