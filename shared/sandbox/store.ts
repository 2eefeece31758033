/**
 * What the sandbox needs from storage, in domain terms. The DynamoDB adapter
 * (`shared/adapters/sandbox-table.ts`) implements it; the domain never sees AWS.
 */
import type { CurrencyCode } from '#shared/money';
import type { Address } from '#shared/provider/interface/schemas';
import type { FaultRule } from '#shared/sandbox/admin-schemas';

/** How long a sandbox user and an application live: refused after it, then removed (DynamoDB TTL). */
export const SANDBOX_LIFETIME_MS = 30 * 86_400_000;

/** An application created through `POST /sandbox/applications`. */
export interface ApplicationRecord {
  createdAt: number;
  /** Refused from this time on (epoch ms): `createdAt` + `SANDBOX_LIFETIME_MS`. */
  expiresAt: number;
}

export interface ConnectionRecord {
  id: string;
  bankId: string;
  appSecretDigest: string;
  userSecretDigest: string;
  accessCodeDigest?: string;
  accessCodeExpiresAt?: number;
  accessTokenDigest?: string;
  /** How long this user's operations wait for user input (ms); the sandbox default when absent. */
  inputTtlMs?: number;
  /** How long this user's asynchronous operations run (else the sandbox's setting). */
  asyncDelayMs?: number;
  /** How long this user's transfers run, where it differs (else `asyncDelayMs`). */
  transferDelayMs?: number;
  /** The operation holding the connection, and until when (epoch ms). */
  lockOperationId?: string;
  lockUntil?: number;
  faults: StoredFault[];
  createdAt: number;
}

export type StoredFault = FaultRule & { remaining?: number };

/** A bank's limit on a connection's calls: at most `calls` in any `windowMs`. */
export interface CallLimit {
  calls: number;
  windowMs: number;
}

export interface AccountRecord {
  connectionId: string;
  id: string;
  currency: CurrencyCode;
  balanceMinor: number;
}

export interface CardRecord {
  connectionId: string;
  id: string;
  currency: CurrencyCode;
  cardNumber: string;
  availableMinor: number;
  outstandingMinor: number;
  amountDueMinor: number;
  dueDate: string;
}

export interface BeneficiaryRecord {
  connectionId: string;
  id: string;
  type: string;
  name: string;
  iban: string;
  accountNumber: string;
  swiftCode: string;
  sortCode: string;
  bankName: string;
  country: string;
  branchName: string;
  branchAddress: string;
  address?: Address | undefined;
  createdAt: number;
  coolDownUntil: number;
  firstTransferAt?: number;
}

/**
 * One call of a user's beneficiary creation that reached the bank's creation (past the faults that
 * stop a request before the bank sees it, and past the check of a question's answers), with what the
 * bank did: `created` (written in the same transaction as the beneficiary), `asked` (the bank asked
 * its questions: nothing created yet, the answered call follows), or `refused` with its type
 * (`BENEFICIARY_ALREADY_EXISTS`, `INVALID_IBAN`, ...). `POST /sandbox/users/get` answers them, so a
 * test counts the creations the provider saw, whoever made them.
 */
export interface BeneficiaryCreationCall {
  connectionId: string;
  /** Sortable (ULID): the calls list in the order they were made. */
  id: string;
  /** The creation's operation (`jobID`): a call that asked and its answered call share it. */
  operationId: string;
  at: number;
  /** The IBAN the call asked to register (normalised when valid, as sent when not). */
  iban: string;
  accountNumber: string;
  outcome: 'created' | 'asked' | 'refused';
  /** The refusal's type, for `refused`. */
  type?: string;
  /** The beneficiary created, for `created`. */
  beneficiaryId?: string;
}

export interface TransferRecord {
  connectionId: string;
  reference: string;
  operationId: string;
  senderId: string;
  amountMinor: number;
  currency: CurrencyCode;
  transferType: 'same' | 'local';
  /** The inline form's `action` (`transfer` or `deposit`); none for a transfer to a beneficiary. */
  action?: string;
  receiver: { beneficiaryId?: string; name: string; iban: string; swiftCode: string };
  createdAt: number;
}

export type OperationKind =
  | 'metadata'
  | 'beneficiaries.list'
  | 'beneficiaries.create'
  | 'transfer.create'
  | 'transfer.autoflow'
  | 'balance';

export type Envelope = Record<string, unknown> & { success: boolean; status: string };

export interface OperationRecord {
  id: string;
  connectionId: string;
  kind: OperationKind;
  /** Digest of the request (without secrets, answers and ids): a repeated request must match it. */
  fingerprint: string;
  state: 'awaiting_input' | 'final';
  /** The envelope the operation answers with once complete, and its HTTP status. */
  response: Envelope;
  httpStatus: number;
  /** Until this time (epoch ms) polling answers `initialized` (operations sent with `sync: false`). */
  completesAt: number;
  inputExpiresAt?: number;
  /** Wrong answers so far, while awaiting input (`MAX_INPUT_TRIES` in all). */
  wrongAnswers?: number;
  createdAt: number;
}

/** The state an operation write expects to find: none (a new operation) or one awaiting input. */
export type OperationPrecondition = 'new' | 'awaiting_input';

/** Raised by a store write whose precondition no longer holds. */
export class StoreConflict extends Error {
  constructor(
    readonly reason: 'operation' | 'insufficient_balance' | 'duplicate_beneficiary' | 'contention',
  ) {
    super(`store conflict: ${reason}`);
  }
}

export interface SandboxStore {
  getApplication(appSecretDigest: string): Promise<ApplicationRecord | undefined>;
  putApplication(appSecretDigest: string, application: ApplicationRecord): Promise<void>;

  createUser(connection: ConnectionRecord, accounts: AccountRecord[], cards: CardRecord[]): Promise<void>;
  getConnection(connectionId: string): Promise<ConnectionRecord | undefined>;
  /** Replaces the access code by the access token, if the code is still the one given. */
  redeemAccessCode(
    connectionId: string,
    accessCodeDigest: string,
    accessTokenDigest: string,
  ): Promise<boolean>;
  setFaults(connectionId: string, faults: StoredFault[]): Promise<void>;
  /** Uses one application of a counted fault rule; false when it has none left. */
  consumeFault(connectionId: string, index: number): Promise<boolean>;

  /**
   * Takes the connection for an operation when free, expired (a lock held until T is free from T on),
   * or already held by that operation.
   */
  acquireLock(connectionId: string, operationId: string, until: number, now: number): Promise<boolean>;
  /** Releases the connection (no `until`) or keeps it until a time, if the operation still holds it. */
  releaseLock(connectionId: string, operationId: string, until?: number): Promise<void>;
  /**
   * Counts a call of the connection at `now` when its bank's window has a place left: undefined when
   * counted, else how long (ms) until the oldest call in the window leaves it (nothing counted).
   */
  countCall(connectionId: string, now: number, limit: CallLimit): Promise<number | undefined>;

  /** Everything the user holds: accounts, cards, transfers and beneficiary creation calls, oldest first. */
  getUserAssets(connectionId: string): Promise<{
    accounts: AccountRecord[];
    cards: CardRecord[];
    transfers: TransferRecord[];
    creationCalls: BeneficiaryCreationCall[];
  }>;
  getAccount(connectionId: string, accountId: string): Promise<AccountRecord | undefined>;
  getCard(connectionId: string, cardId: string): Promise<CardRecord | undefined>;
  getBeneficiary(connectionId: string, beneficiaryId: string): Promise<BeneficiaryRecord | undefined>;
  beneficiaryExists(connectionId: string, iban: string): Promise<boolean>;
  listBeneficiaries(connectionId: string): Promise<BeneficiaryRecord[]>;

  getOperation(operationId: string): Promise<OperationRecord | undefined>;
  /** Writes an operation; StoreConflict('operation') when the precondition fails. */
  saveOperation(operation: OperationRecord, precondition: OperationPrecondition): Promise<void>;
  /**
   * Writes an operation still awaiting input after a wrong answer, if it still awaits input with
   * `previousWrongAnswers` wrong answers; StoreConflict('operation') otherwise.
   */
  recordWrongAnswer(operation: OperationRecord, previousWrongAnswers: number): Promise<void>;
  /** Records a creation call that created nothing (it asked, or was refused). */
  recordCreationCall(call: BeneficiaryCreationCall): Promise<void>;
  /** One transaction: the beneficiary, its IBAN uniqueness, the operation, and the call that created it. */
  createBeneficiary(
    beneficiary: BeneficiaryRecord,
    operation: OperationRecord,
    precondition: OperationPrecondition,
    call: BeneficiaryCreationCall,
  ): Promise<void>;
  /** One transaction: debit (never below zero), transfer record, first use of the beneficiary, operation. */
  commitTransfer(
    transfer: TransferRecord,
    operation: OperationRecord,
    precondition: OperationPrecondition,
  ): Promise<void>;
}
