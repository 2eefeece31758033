/**
 * The orchestrator's composition: each handler builds, once per process, only the adapters its
 * context names, from configuration it alone reads. The pieces here are what the handlers'
 * contexts share; `shared/deposits/reach.ts` says which queues and schedules each may reach, and
 * the handler gets exactly those (its URLs and ARNs, and in AWS its grants).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { dynamodbClient, schedulerClient, sqsClient } from '#shared/adapters/clients';
import { EncryptionSdkVault, vaultKeyring } from '#shared/adapters/credential-vault';
import {
  BeneficiaryClaimItems,
  ConnectionLeaseItems,
  DepositItems,
  DueDepositsIndex,
  IdempotencyItems,
} from '#shared/adapters/deposits-table';
import { depositMetrics } from '#shared/adapters/metrics';
import { NotificationQueue } from '#shared/adapters/notification-queue';
import { EventBridgeWakeScheduler } from '#shared/adapters/scheduler';
import { SqsStepQueues } from '#shared/adapters/step-queues';
import {
  depositsTableConfig,
  notifyConfig,
  providerConfig,
  schedulerConfig,
  stepQueueArns,
  stepQueueUrls,
  tuningConfig,
  vaultConfig,
  walletsConfig,
} from '#shared/config';
import type { WorkStep } from '#shared/deposits/model';
import type { Clock, DepositSettings } from '#shared/deposits/ports';
import { type ReachName, reach, type SendsOf, type WakesOf } from '#shared/deposits/reach';
import type { FailContext, TransitionContext } from '#shared/deposits/transitions';
import { walletAccounts, walletBook } from '#shared/deposits/wallets';
import { ProviderClient } from '#shared/provider/client';

export const systemClock: Clock = { now: Date.now, sleep: (ms) => sleep(ms) };

function table() {
  return { client: dynamodbClient(), tableName: depositsTableConfig().DEPOSITS_TABLE_NAME };
}

export const tableEntities = {
  deposits: () => new DepositItems(table()),
  idempotency: () => new IdempotencyItems(table()),
  due: () => new DueDepositsIndex(table()),
  claims: () => new BeneficiaryClaimItems(table()),
  leases: () => new ConnectionLeaseItems(table()),
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
    stallAfterMs: tuning.STALL_AFTER_SECONDS * 1000,
    claimStaleMs: Math.max(60_000, PROVIDER_TIMEOUT_MS * 3),
  };
}

/** The step queues handler `name` sends to, and no other. */
export function queuesOf<H extends ReachName>(name: H) {
  return new SqsStepQueues<SendsOf<H>>(
    sqsClient(),
    stepQueueUrls(reach[name].sends as readonly SendsOf<H>[]),
  );
}

/** The scheduler, targeting the queues handler `name` wakes, and no other. */
export function schedulerOf<H extends ReachName>(name: H) {
  const config = schedulerConfig();
  const steps = reach[name].wakes as readonly WorkStep[] as readonly WakesOf<H>[];
  return new EventBridgeWakeScheduler<WakesOf<H>>(schedulerClient(), {
    groupName: config.SCHEDULE_GROUP_NAME,
    queueArns: stepQueueArns(steps),
    roleArn: config.SCHEDULER_ROLE_ARN,
    deadLetterArn: config.SCHEDULER_DLQ_ARN,
  });
}

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

export function depositEvents() {
  return new NotificationQueue(sqsClient(), notifyConfig().NOTIFY_QUEUE_URL);
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
