/**
 * What the steps that call the provider, and the create route, are given besides the table, the
 * queues and the transitions: the credential vault, the provider, the wallet accounts.
 */

import { EncryptionSdkVault, vaultKeyring } from '#shared/adapters/credential-vault';
import { providerConfig, vaultConfig, walletsConfig } from '#shared/config';
import { walletAccounts, walletBook } from '#shared/deposits/wallets';
import { ProviderClient } from '#shared/provider/client';

export function credentialVault() {
  const config = vaultConfig();
  return new EncryptionSdkVault(
    vaultKeyring({ kmsKeyArn: config.CREDENTIALS_KEY_ARN, localKey: config.LOCAL_ENCRYPTION_KEY }),
  );
}

export function providerClient() {
  const config = providerConfig();
  return new ProviderClient({
    baseUrl: config.PROVIDER_BASE_URL,
    timeoutMs: config.PROVIDER_TIMEOUT_MS,
    autoflowAction: config.PROVIDER_AUTOFLOW_ACTION,
  });
}

export function wallets() {
  const config = walletsConfig();
  return walletBook(walletAccounts(config.WALLET_ACCOUNTS), config.DEFAULT_WALLET_ACCOUNT_ID);
}
