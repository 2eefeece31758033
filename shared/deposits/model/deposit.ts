/**
 * The deposit: what the orchestrator keeps about one movement of money from a user's bank account
 * into a wallet account, and our record of the beneficiary per connection. The messages that move it
 * and the events its caller hears are in `messages.ts`; what its caller sees of it in `views.ts`. No
 * AWS here.
 */
import * as z from 'zod';
import type { CurrencyCode } from '#shared/money';
import type { InlineBeneficiary, NewBeneficiary, UserInput } from '#shared/provider/interface/schemas';
import type { BeneficiaryWork, StepCounters, Tallies, TransferWork } from './deposit-work.ts';
import type { DepositEvent } from './events.ts';

export const DepositStatus = z.enum(['initialized', 'user_input_required', 'done', 'failed']);
export type DepositStatus = z.infer<typeof DepositStatus>;

/** Where a deposit stands. `completed` once it is done or failed. */
export const DepositStep = z.enum([
  'resolve-bank',
  'ensure-beneficiary',
  'wait-cooldown',
  'transfer',
  'reconcile',
  'completed',
]);
export type DepositStep = z.infer<typeof DepositStep>;

/** The steps that have a queue and a handler. */
export type WorkStep = Exclude<DepositStep, 'completed'>;

/**
 * The caller's business fields on a deposit: what it is known by in the wallet's own
 * books (`clientReference`: 1 to 128 printable ASCII characters, no spaces; unique per backend, so
 * a second create with it answers the first deposit) and a small map of its own (`metadata`: at most
 * 20 keys of 1 to 40 characters, each value at most 500; no control characters). Neither may hold a
 * secret of the request. They cost at most some 11 KB on the deposit's item and as much on each event.
 */
export const businessFields = {
  clientReference: { pattern: /^[\x21-\x7e]{1,128}$/ },
  metadata: { maxKeys: 20, maxKey: 40, maxValue: 500 },
} as const;

export interface WalletAccount {
  id: string;
  currency: CurrencyCode;
  /** As a beneficiary is created (full country name). */
  beneficiary: NewBeneficiary;
  /** As a receiver is given inline (two-letter country code). */
  inline: InlineBeneficiary;
  /** The largest deposit it takes, in minor units. */
  maxDepositMinor: number;
}

export interface BankFacts {
  swiftCode: string;
  bankName: string;
  isCreateBeneficiaryEndpointRequired: boolean;
  hidesNewBeneficiaries: boolean;
  coolDownMs: number;
}

/** The provider operation a step may stop at for the caller's answer. */
export type AskingOperation = 'metadata' | 'list' | 'create' | 'transfer';

export interface PendingInput {
  /** The provider's id of the operation waiting for the answer (`jobID` or `operationID`). */
  providerOperationId: string;
  /** Which of the step's calls asked (absent on deposits from before it was recorded: the creation). */
  operation?: AskingOperation;
  /** The question as kept: each input's id, index and query, bounded (`keptQuestion`); never an answer. */
  userInputs: AskedInput[];
  expiresAt: number;
}

/** One input of the bank's question, as the deposit keeps it. */
export type AskedInput = Pick<UserInput, 'id' | 'index' | 'query'>;

export interface HistoryEntry {
  step: DepositStep;
  status: DepositStatus;
  at: number;
  note?: string;
}

export interface Deposit {
  id: string;
  /**
   * A payment source (`/v1/sources/create`): it runs the deposit's steps to prepare the connection
   * for deposits into the wallet account (bank, beneficiary, cool-down) and stops before the transfer,
   * `done` meaning ready. Absent on a deposit.
   */
  purpose?: 'source';
  /** Digest of the user's access token: the provider connection that owns the deposit. */
  ownerKey: string;
  /** Digest of the user secret, so that only the owner can read the deposit. */
  readerKey: string;
  /**
   * Digest of the identity of the wallet backend that created it (`caller.ts`): that backend reads,
   * lists, cancels and answers it without the user's secrets; no other sees it. Absent on a deposit
   * created without one (before deposits carried a backend identity, or by a caller no authorizer named).
   */
  backendKey?: string;
  idempotencyKey: string;
  fingerprint: string;
  /** The caller's own reference of the deposit (`businessFields`): unique per backend. */
  clientReference?: string;
  /** The caller's own small string map (`businessFields`), shown on every view and event. */
  metadata?: Record<string, string>;
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
  /** The way to the beneficiary (`BeneficiaryWork`): gone, in one assignment, when it is registered again. */
  beneficiaryWork?: BeneficiaryWork;
  cooldownUntil?: number;
  pendingInput?: PendingInput;
  /**
   * The call lease a step handed to the step it sent next, with the write that moved the deposit
   * there: that step's first take reclaims it (one copy of its message only), instead of the lease
   * given back and taken again between two calls to the bank. Dropped by the next write.
   */
  leaseHeld?: string;
  /** The transfer's scratch (`TransferWork`): gone, in one assignment, once the bank refused it or asked a question. */
  transfer?: TransferWork;
  /** Counted within the current step (`StepCounters`): a new step starts them over, in one assignment. */
  stepCounters: StepCounters;
  /** Counted across the deposit's steps (`Tallies`), for their bounds: never started over. */
  tallies?: Tallies;
  /**
   * Re-drives by the sweeper since the deposit last moved, for their growing delay. Beside `checkAt`,
   * not in a group: the sweeper's own update writes both (`SET checkAt, redrives`), and its index
   * (`byCheckAt`) projects it, which can name only top-level attributes.
   */
  redrives?: number;
  reference?: string;
  failure?: { type: string; msg: string };
  history: HistoryEntry[];
  createdAt: number;
  updatedAt: number;
  /** Random per version: a writer whose answer was lost recognises its own write by it. */
  writeId?: string;
  /** When the sweeper should look at the deposit if nothing happened before; absent once final. */
  checkAt?: number;
  /**
   * The outbox: the event this version produces for the caller, written with the change itself and
   * relayed from the table's stream; absent on a version the caller need not hear of.
   */
  event?: DepositEvent;
  /** An operator's resolution of an unknown transfer outcome (done or failed), once it is resolved. */
  resolution?: Resolution;
  /** A resolution to `done` above the approval threshold, until a second operator approves it. */
  pendingResolution?: PendingResolution;
  /**
   * The trace its create started in (an X-Ray trace header), carried by every message of its steps and
   * events, so that its every function's work is one trace (`shared/tracing.ts`).
   */
  trace?: string;
}

/** Who settled an unknown transfer outcome, how and why (the operator API's resolve). */
export interface Resolution {
  outcome: 'done' | 'failed';
  /** The operator's identity (its IAM ARN in AWS). */
  by: string;
  reason: string;
  at: number;
  /** The second operator who approved it (a `done` above the approval threshold), why, and when it took effect. */
  approval?: { by: string; reason: string; at: number };
}

/** A resolution to `done` that waits for a second, different operator's approval (`shared/operator/approval.ts`). */
export interface PendingResolution {
  outcome: 'done';
  reference: string;
  /** The operator who proposed it. */
  by: string;
  reason: string;
  at: number;
}

/** The bank's facts, which resolve-bank recorded before any later step runs. */
export function bankOf(deposit: Deposit): BankFacts {
  if (!deposit.bank) throw new Error(`deposit ${deposit.id} has no bank facts at ${deposit.step}`);
  return deposit.bank;
}

/**
 * The step a deposit waiting for the bank's cool-down goes on with: the transfer, once the
 * beneficiary's id is known; else (a bank that hides new beneficiaries) the look-up of its id.
 */
export function afterCoolDown(deposit: Pick<Deposit, 'beneficiaryId'>): 'transfer' | 'ensure-beneficiary' {
  return deposit.beneficiaryId ? 'transfer' : 'ensure-beneficiary';
}

/** Our record of the beneficiary we registered for one user connection and wallet account. */
export interface BeneficiaryClaim {
  ownerKey: string;
  walletAccountId: string;
  /**
   * `creating` while one deposit registers it (its claim); `created` once the bank has it: with its
   * id, or, until its id is looked up in the list, without (then `lookupAt` says from when).
   */
  state: 'creating' | 'created';
  /** The deposit that claims it, or that created it. */
  depositId: string;
  claimedAt: number;
  beneficiaryId?: string;
  cooldownUntil?: number;
  /**
   * A created beneficiary whose id is not known yet (a bank that hides new ones until their
   * cool-down has passed, or one not listed yet): the instant from which the list shows it. Whoever
   * comes then looks it up, the deposit that created it or another: it outlives its creator (a
   * cancelled or failed source), and it is never created again.
   */
  lookupAt?: number;
  /** A transfer through it has completed, so banks that want details on the first one have them. */
  used?: boolean;
  /**
   * At a bank that lists accounts masked: the ids of the entries that fitted the wallet's, listed
   * right before the holder's creation. Written before the creation is sent, so that whoever runs
   * next (the holder again, or a deposit taking its claim over) tells the one new entry apart even
   * when the holder died with the creation's answer.
   */
  fittingBeforeCreation?: string[];
  /**
   * Recorded as created because the bank refused the caller's answers to the creation as spent
   * (no operation waits for them): it may have run, or not (the bank stopped waiting). The look-up
   * decides: listed, it ran; not listed, it never did, and it is created again.
   */
  unconfirmed?: boolean;
}

/** Whether this record is a payment source rather than a deposit. */
export function isSource(deposit: Pick<Deposit, 'purpose'>): boolean {
  return deposit.purpose === 'source';
}
