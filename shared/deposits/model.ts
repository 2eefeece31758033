/**
 * The deposit: what the orchestrator keeps about one movement of money from a user's bank account
 * into a wallet account, and the ports through which the workflow reaches storage, queues, the
 * scheduler and the credential vault. No AWS here.
 */
import { z } from 'zod';
import type { CurrencyCode } from '#shared/money';
import type { ProviderCredentials } from '#shared/provider/client';
import type { InlineBeneficiary, NewBeneficiary, UserInput } from '#shared/spec/schemas';

export const DepositStatus = z.enum(['initialized', 'user_input_required', 'done', 'failed']);
export type DepositStatus = z.infer<typeof DepositStatus>;

/** Where a deposit stands. `completed` once it is done or failed. */
export const DepositStep = z.enum([
  'resolve-bank',
  'ensure-beneficiary',
  'wait-cooldown',
  'transfer',
  'completed',
]);
export type DepositStep = z.infer<typeof DepositStep>;

/** The steps that have a queue and a handler. */
export type WorkStep = Exclude<DepositStep, 'completed'>;

/** A step message: the deposit, the step it asks for, and the version of the deposit it expects. */
export const StepMessage = z.object({
  depositId: z.string().min(1),
  step: DepositStep.exclude(['completed']),
  version: z.number().int().nonnegative(),
  /** `run` (default) works the step; `expire-input` fails the deposit if it still waits for input. */
  kind: z.enum(['run', 'expire-input']).default('run'),
});
export type StepMessage = z.infer<typeof StepMessage>;

export interface WalletAccount {
  id: string;
  currency: CurrencyCode;
  /** As a beneficiary is created (full country name). */
  beneficiary: NewBeneficiary;
  /** As a receiver is given inline (two-letter country code). */
  inline: InlineBeneficiary;
}

export interface BankFacts {
  swiftCode: string;
  bankName: string;
  isCreateBeneficiaryEndpointRequired: boolean;
  hidesNewBeneficiaries: boolean;
  coolDownMs: number;
}

export interface PendingInput {
  /** The provider's id of the operation waiting for the answer (`jobID` or `operationID`). */
  providerOperationId: string;
  userInputs: UserInput[];
  expiresAt: number;
}

export interface HistoryEntry {
  step: DepositStep;
  status: DepositStatus;
  at: number;
  note?: string;
}

export interface Deposit {
  id: string;
  /** Digest of the user's access token: the provider connection that owns the deposit. */
  ownerKey: string;
  /** Digest of the user secret, so that only the owner can read the deposit. */
  readerKey: string;
  idempotencyKey: string;
  fingerprint: string;
  status: DepositStatus;
  step: DepositStep;
  version: number;
  amountMinor: number;
  currency: CurrencyCode;
  senderId: string;
  walletAccountId: string;
  /** The user's provider credentials, sealed; removed when the deposit ends. */
  sealedCredentials?: string;
  /** The caller's answers to the pending input, sealed; removed once used. */
  sealedAnswers?: string;
  bank?: BankFacts;
  beneficiaryId?: string;
  /**
   * The bank said the beneficiary exists, but an earlier attempt's answer (its id) was lost: look it
   * up in the list at this time, when even a bank that hides new beneficiaries shows it.
   */
  beneficiaryLookupAt?: number;
  /** Send the beneficiary's details with the transfer (first transfer, or the bank asked). */
  sendBeneficiaryDetails?: boolean;
  cooldownUntil?: number;
  pendingInput?: PendingInput;
  /** Set, conditionally, just before the transfer call: its presence means money may have moved. */
  transferAttempt?: { at: number; answering: boolean };
  /** Retries of the current step after an unknown outcome of a read, or a busy connection. */
  retries: number;
  reference?: string;
  failure?: { type: string; msg: string };
  history: HistoryEntry[];
  createdAt: number;
  updatedAt: number;
  /** When the sweeper should look at the deposit if nothing happened before; absent once final. */
  checkAt?: number;
}

/** The caller-facing view of a deposit. */
export function depositView(deposit: Deposit, now: number, toMajor: (minor: number) => number) {
  return {
    operationID: deposit.id,
    success: deposit.status !== 'failed',
    status: deposit.status,
    step: deposit.step,
    amount: toMajor(deposit.amountMinor),
    currency: deposit.currency,
    walletAccountID: deposit.walletAccountId,
    ...(deposit.step === 'wait-cooldown' && deposit.cooldownUntil && deposit.cooldownUntil > now
      ? { resumesAt: new Date(deposit.cooldownUntil).toISOString() }
      : {}),
    ...(deposit.status === 'user_input_required' && deposit.pendingInput
      ? {
          userInputs: deposit.pendingInput.userInputs,
          inputExpiresAt: new Date(deposit.pendingInput.expiresAt).toISOString(),
        }
      : {}),
    ...(deposit.reference ? { reference: deposit.reference } : {}),
    ...(deposit.failure ? { type: deposit.failure.type, msg: deposit.failure.msg } : {}),
    history: deposit.history.map((entry) => ({ ...entry, at: new Date(entry.at).toISOString() })),
    createdAt: new Date(deposit.createdAt).toISOString(),
    updatedAt: new Date(deposit.updatedAt).toISOString(),
  };
}

/** Our record of the beneficiary we registered for one user connection and wallet account. */
export interface BeneficiaryClaim {
  ownerKey: string;
  walletAccountId: string;
  /** `creating` while one deposit registers it; `created` once the provider gave its id. */
  state: 'creating' | 'created';
  depositId: string;
  claimedAt: number;
  beneficiaryId?: string;
  cooldownUntil?: number;
  /** A transfer through it has completed, so banks that want details on the first one have them. */
  used?: boolean;
}

export interface Idempotency {
  ownerKey: string;
  key: string;
  depositId: string;
}

export interface DepositStore {
  /** Creates the deposit and its idempotency record together; the existing deposit if the key is taken. */
  create(deposit: Deposit): Promise<{ created: true } | { created: false; existing: Deposit | undefined }>;
  get(depositId: string): Promise<Deposit | undefined>;
  /** Writes the deposit if it is still at `expectedVersion`; false otherwise. */
  save(deposit: Deposit, expectedVersion: number): Promise<boolean>;
  /** Deposits whose `checkAt` has passed, oldest first. */
  findStalled(now: number, limit: number): Promise<Deposit[]>;

  getBeneficiary(ownerKey: string, walletAccountId: string): Promise<BeneficiaryClaim | undefined>;
  /** Claims the registration of a beneficiary; false if another deposit holds a live claim. */
  claimBeneficiary(claim: BeneficiaryClaim, staleBefore: number): Promise<boolean>;
  /** Writes this deposit's own creation claim (refreshed, or completed as `created`), if it still holds it. */
  updateBeneficiaryClaim(claim: BeneficiaryClaim): Promise<boolean>;
  markBeneficiaryUsed(ownerKey: string, walletAccountId: string): Promise<void>;
  /** Gives up a creation claim this deposit holds (it failed), so another deposit can create. */
  releaseBeneficiaryClaim(ownerKey: string, walletAccountId: string, depositId: string): Promise<void>;

  /**
   * One provider operation at a time per user connection: takes the lease if it is free, expired,
   * already this holder's, or held by `reclaimable` (a deposit taking back its own lease).
   */
  acquireLease(
    ownerKey: string,
    holder: string,
    until: number,
    now: number,
    reclaimable?: string,
  ): Promise<boolean>;
  /** Releases the lease if this holder has it. */
  releaseLease(ownerKey: string, holder: string): Promise<void>;
}

export interface StepQueues {
  send(message: StepMessage, delaySeconds?: number): Promise<void>;
}

export interface WakeScheduler {
  /** Sends `message` to the transfer queue at `at`; idempotent per `name`. */
  scheduleAt(name: string, at: Date, message: StepMessage): Promise<void>;
}

export interface CredentialVault {
  seal(depositId: string, secret: unknown): Promise<string>;
  open<T>(depositId: string, sealed: string): Promise<T>;
}

export type DepositCredentials = ProviderCredentials;

/** What the caller of the deposits API hears about (webhooks), as it travels on the notify queue. */
export const DepositEvent = z.object({
  /** `<depositId>.v<version>`: the same event delivered twice has the same id. */
  id: z.string().min(1),
  type: z.enum(['deposit.user_input_required', 'deposit.cooling_down', 'deposit.done', 'deposit.failed']),
  depositId: z.string().min(1),
  occurredAt: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type DepositEvent = z.infer<typeof DepositEvent>;

/** Told of every change of a deposit's status or step (metrics). */
export interface DepositObserver {
  transitioned(status: DepositStatus, step: DepositStep): void;
}

export interface Notifications {
  publish(event: DepositEvent): Promise<void>;
}
