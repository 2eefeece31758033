/**
 * The deposits table and the time: what every orchestrator handler builds. Each
 * handler builds, once per process, only the adapters its context names, from configuration it
 * alone reads (the other wiring modules: `messaging.ts`, `steps.ts`).
 */

import { BankMemoryItems } from '#shared/adapters/bank-memory';
import { dynamodbClient } from '#shared/adapters/clients';
import { ConnectionLeaseItems } from '#shared/adapters/connection-lease-items';
import { DeliveryItems } from '#shared/adapters/delivery-items';
import { DepositItems, IdempotencyItems } from '#shared/adapters/deposit-items';
import {
  BackendDepositsIndex,
  DueDepositsIndex,
  OwnerDepositsIndex,
} from '#shared/adapters/deposits-indexes';
import { StatusDepositsIndex } from '#shared/adapters/deposits-status-index';
import { BeneficiaryClaimItems } from '#shared/adapters/deposits-table';
import { SharedWakeItems } from '#shared/adapters/shared-wakes';
import { depositsTableConfig, providerConfig, tuningConfig } from '#shared/config';
import type { DepositSettings } from '#shared/deposits/ports/settings';

function table() {
  return { client: dynamodbClient(), tableName: depositsTableConfig().DEPOSITS_TABLE_NAME };
}

/** The adapters of the deposits table, one per entity. */
export const tableEntities = {
  /** With the sealed credentials only for a handler that opens them. */
  deposits: (options: { withCredentials?: boolean } = {}) => new DepositItems(table(), options),
  idempotency: () => new IdempotencyItems(table()),
  due: () => new DueDepositsIndex(table()),
  owners: () => new OwnerDepositsIndex(table()),
  backends: () => new BackendDepositsIndex(table()),
  byStatus: () => new StatusDepositsIndex(table()),
  claims: () => new BeneficiaryClaimItems(table()),
  leases: () => new ConnectionLeaseItems(table()),
  banks: () => new BankMemoryItems(table()),
  sharedWakes: () => new SharedWakeItems(table()),
  /** The webhook deliveries' records (the notifier's, read and resent by operators). */
  deliveries: () => new DeliveryItems(table()),
};

export function depositSettings(): DepositSettings {
  const tuning = tuningConfig();
  const { PROVIDER_TIMEOUT_MS } = providerConfig();
  return {
    longWaitMs: tuning.LONG_WAIT_SECONDS * 1000,
    leaseMs: PROVIDER_TIMEOUT_MS + 5_000,
    leasePatienceMs: 2_000,
    inputTtlMs: tuning.INPUT_TTL_SECONDS * 1000,
    maxRetries: tuning.MAX_RETRIES,
    coolDownRetryMs: tuning.COOL_DOWN_RETRY_SECONDS * 1000,
    maxRedrives: tuning.MAX_REDRIVES,
    stallAfterMs: tuning.STALL_AFTER_SECONDS * 1000,
    // Past the stall time: the sweeper's period (a minute), and a run of the step (its provider calls).
    claimStaleMs: 60_000 + Math.max(60_000, PROVIDER_TIMEOUT_MS * 3),
    bankMemoryMs: tuning.BANK_MEMORY_SECONDS * 1000,
    sourceBankMemoryMs: tuning.SOURCE_BANK_MEMORY_SECONDS * 1000,
    maxPolls: tuning.RECONCILE_MAX_POLLS,
    pollCapMs: tuning.RECONCILE_POLL_CAP_SECONDS * 1000,
  };
}
