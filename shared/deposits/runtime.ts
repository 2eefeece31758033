/** The deposit workflow as the handlers use it: domain wired to its adapters and configuration. */
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { EncryptionSdkVault, vaultKeyring } from '#shared/adapters/credential-vault';
import { DepositsTable } from '#shared/adapters/deposits-table';
import { dynamodb } from '#shared/adapters/dynamodb';
import { depositMetrics } from '#shared/adapters/metrics';
import { NotificationQueue } from '#shared/adapters/notification-queue';
import { EventBridgeWakeScheduler } from '#shared/adapters/scheduler';
import { sqs } from '#shared/adapters/sqs';
import { SqsStepQueues } from '#shared/adapters/step-queues';
import { depositsConfig } from '#shared/config';
import { ProviderClient } from '#shared/provider/client';
import { walletAccounts } from './wallets.ts';
import { DepositWorkflow } from './workflow.ts';

const config = depositsConfig();

export const notificationQueue = new NotificationQueue(sqs, config.NOTIFY_QUEUE_URL);

export const workflow = new DepositWorkflow(
  {
    store: new DepositsTable(dynamodb, config.DEPOSITS_TABLE_NAME),
    queues: new SqsStepQueues(sqs, {
      'resolve-bank': config.RESOLVE_BANK_QUEUE_URL,
      'ensure-beneficiary': config.ENSURE_BENEFICIARY_QUEUE_URL,
      'wait-cooldown': config.WAIT_COOLDOWN_QUEUE_URL,
      transfer: config.TRANSFER_QUEUE_URL,
    }),
    scheduler: new EventBridgeWakeScheduler(
      new SchedulerClient(config.SCHEDULER_ENDPOINT ? { endpoint: config.SCHEDULER_ENDPOINT } : {}),
      {
        groupName: config.SCHEDULE_GROUP_NAME,
        queueArn: config.TRANSFER_QUEUE_ARN,
        roleArn: config.SCHEDULER_ROLE_ARN,
        deadLetterArn: config.SCHEDULER_DLQ_ARN,
      },
    ),
    vault: new EncryptionSdkVault(
      vaultKeyring({ kmsKeyArn: config.CREDENTIALS_KEY_ARN, localKey: config.LOCAL_ENCRYPTION_KEY }),
    ),
    provider: new ProviderClient({
      baseUrl: config.PROVIDER_BASE_URL,
      timeoutMs: config.PROVIDER_TIMEOUT_MS,
    }),
    notifications: notificationQueue,
    observer: depositMetrics,
    wallets: walletAccounts(config.WALLET_ACCOUNTS),
    defaultWalletAccountId: config.DEFAULT_WALLET_ACCOUNT_ID,
  },
  {
    longWaitMs: config.LONG_WAIT_SECONDS * 1000,
    leaseMs: config.PROVIDER_TIMEOUT_MS + 5_000,
    leasePatienceMs: 2_000,
    inputTtlMs: config.INPUT_TTL_SECONDS * 1000,
    maxRetries: config.MAX_RETRIES,
    stallAfterMs: config.STALL_AFTER_SECONDS * 1000,
    claimStaleMs: Math.max(60_000, config.PROVIDER_TIMEOUT_MS * 3),
  },
);
