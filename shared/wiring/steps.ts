/**
 * What the steps that call the provider, and the create route, share besides the table, the queues
 * and the transitions: the credential vault, the provider, the wallet accounts.
 */

import { EncryptionSdkVault, vaultKeyring } from '#shared/adapters/credential-vault';
import { providerConfig, vaultConfig, walletsConfig } from '#shared/config';
import { walletAccounts, walletBook } from '#shared/deposits/wallets';
import { ProviderClient } from '#shared/provider/client';
import { queuesOf } from './messaging.ts';
import { tableEntities } from './table.ts';
import { type FailingHandler, failPorts } from './transitions.ts';

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

/** What a step that calls the provider needs: failing, the lease, the credentials, its queues. */
export function connectionPorts<H extends FailingHandler>(name: H) {
  return {
    ...failPorts(name),
    leases: tableEntities.leases(),
    vault: credentialVault(),
    queues: queuesOf(name),
    provider: providerClient(),
    wallets: wallets(),
  };
}
