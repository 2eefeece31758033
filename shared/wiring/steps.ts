/**
 * What the steps and the create route share besides the table and the queues: state changes with
 * their metric, failing (with the caller's event and the connection's lease), the credential
 * vault, the provider, the wallet accounts.
 */

import { EncryptionSdkVault, vaultKeyring } from '#shared/adapters/credential-vault';
import { depositMetrics } from '#shared/adapters/metrics';
import { systemClock } from '#shared/clock';
import { providerConfig, vaultConfig, walletsConfig } from '#shared/config';
import type { ReachName } from '#shared/deposits/reach';
import type { FailContext, TransitionContext } from '#shared/deposits/transitions';
import { walletAccounts, walletBook } from '#shared/deposits/wallets';
import { ProviderClient } from '#shared/provider/client';
import { depositEvents, queuesOf } from './messaging.ts';
import { depositSettings, tableEntities } from './table.ts';

export function credentialVault() {
  const config = vaultConfig();
  return new EncryptionSdkVault(
    vaultKeyring({ kmsKeyArn: config.CREDENTIALS_KEY_ARN, localKey: config.LOCAL_ENCRYPTION_KEY }),
  );
}

export function providerClient() {
  const config = providerConfig();
  return new ProviderClient({ baseUrl: config.PROVIDER_BASE_URL, timeoutMs: config.PROVIDER_TIMEOUT_MS });
}

export function wallets() {
  const config = walletsConfig();
  return walletBook(walletAccounts(config.WALLET_ACCOUNTS), config.DEFAULT_WALLET_ACCOUNT_ID);
}

/** What every change of state needs: the deposit records, the clock, the settings, the metric. */
export function transitionPorts(): TransitionContext {
  return {
    deposits: tableEntities.deposits(),
    clock: systemClock,
    settings: depositSettings(),
    observer: depositMetrics,
  };
}

/** What failing a deposit needs besides: the caller's events and the connection's lease. */
export function failPorts(): FailContext {
  return { ...transitionPorts(), events: depositEvents(), leases: tableEntities.leases() };
}

/** What a step that calls the provider needs: failing, the lease, the credentials, its queues. */
export function connectionPorts<H extends ReachName>(name: H) {
  return {
    ...failPorts(),
    leases: tableEntities.leases(),
    vault: credentialVault(),
    queues: queuesOf(name),
    provider: providerClient(),
    wallets: wallets(),
  };
}
