/**
 * The deposit workflow: one call starts a deposit; step messages carry it through the bank's rules
 * to a transfer that happens at most once. Every transition is a conditional write on the deposit's
 * version, so duplicate, late and re-ordered messages find the deposit moved on and do nothing.
 *
 *   resolve-bank        metadata; amount against transferBounds; picks the path
 *   ensure-beneficiary  our record first, else list, else create (one creator per connection+wallet)
 *   wait-cooldown       a schedule (long waits) or a delayed message (short ones) wakes the transfer
 *   transfer            records the attempt, then calls the provider: never twice
 *
 * A provider call on a read may be retried; a transfer whose outcome is unknown is never repeated:
 * the deposit fails with TRANSFER_OUTCOME_UNKNOWN for reconciliation.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ulid } from 'ulid';
import { AmountError, fromMinorUnits, isCurrencyCode, toMinorUnits } from '#shared/money';
import {
  type InputAnswer,
  type ProviderAnswer,
  type ProviderClient,
  ProviderRefusal,
  ProviderUnknownOutcome,
} from '#shared/provider/client';
import { digest, matchesDigest } from '#shared/secrets';
import { EnvelopeError } from '#shared/spec/errors';
import { periodMs } from '#shared/spec/period';
import type { AccountsMetadata, UserInput } from '#shared/spec/schemas';
import { crashPoints } from './crash-points.ts';
import {
  type BankFacts,
  type CredentialVault,
  type Deposit,
  type DepositCredentials,
  type DepositEvent,
  type DepositObserver,
  type DepositStore,
  depositView,
  type Notifications,
  type StepMessage,
  type StepQueues,
  type WakeScheduler,
  type WalletAccount,
} from './model.ts';

export interface WorkflowOptions {
  /** Waits longer than this become a schedule; shorter ones a delayed message (at most 15 min). */
  longWaitMs: number;
  /** How long a step may hold the user's connection for one provider call. */
  leaseMs: number;
  /** How long a step waits for a busy connection before it comes back later through its queue. */
  leasePatienceMs: number;
  /** How long a deposit waits for the caller's answer to the provider's question. */
  inputTtlMs: number;
  /** Retries of a read whose outcome was unknown, and of a step refused because the connection was busy. */
  maxRetries: number;
  /** A deposit that has not moved for this long is re-driven by the sweeper. */
  stallAfterMs: number;
  /** A claim to create a beneficiary older than this is taken over (its holder died). */
  claimStaleMs: number;
}

/** The deposits API's own refusals and their HTTP statuses. */
export const depositErrorTypes = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  DEPOSIT_NOT_FOUND: 404,
  INVALID_WALLET_ACCOUNT_ID: 400,
  IDEMPOTENCY_KEY_REUSED: 409,
} as const;

/** A refusal of the deposits API itself, answered as the spec's failed envelope. */
export class DepositError extends EnvelopeError {
  constructor(type: keyof typeof depositErrorTypes, msg: string, details?: string[]) {
    super(type, depositErrorTypes[type], msg, details);
    this.name = 'DepositError';
  }
}

export interface StartDeposit {
  accessToken: string;
  idempotencyKey: string;
  appSecret: string;
  userSecret: string;
  amount: number;
  senderID: string;
  walletAccountID?: string | undefined;
  userInputs?: UserInput[] | undefined;
}

const MAX_SQS_DELAY_SECONDS = 900;

export class DepositWorkflow {
  private readonly wallets: Map<string, WalletAccount>;

  constructor(
    private readonly deps: {
      store: DepositStore;
      queues: StepQueues;
      scheduler: WakeScheduler;
      vault: CredentialVault;
      provider: ProviderClient;
      notifications: Notifications;
      observer?: DepositObserver;
      wallets: WalletAccount[];
      defaultWalletAccountId: string;
    },
    private readonly options: WorkflowOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.wallets = new Map(deps.wallets.map((wallet) => [wallet.id, wallet]));
  }

  // -------------------------------------------------------------------------------------------
  // The deposits API

  /**
   * Starts a deposit, or answers for the one this idempotency key already started:
   *   1. the wallet account and the amount in its currency's minor units;
   *   2. the deposit and its idempotency record, written together;
   *   3. the first step message. A repeat with answers resumes a deposit that waits for input.
   */
  async start(request: StartDeposit) {
    const walletId = request.walletAccountID ?? this.deps.defaultWalletAccountId;
    const wallet = this.wallets.get(walletId);
    if (!wallet) throw new DepositError('INVALID_WALLET_ACCOUNT_ID', `No wallet account ${walletId}`);
    let amountMinor: number;
    try {
      amountMinor = toMinorUnits(request.amount, wallet.currency);
    } catch (error) {
      if (error instanceof AmountError)
        throw new DepositError('BAD_REQUEST', 'Invalid JSON request', [`amount: ${error.message}`]);
      throw error;
    }

    const now = this.now();
    const id = `dep_${ulid()}`;
    const credentials: DepositCredentials = {
      accessToken: request.accessToken,
      appSecret: request.appSecret,
      userSecret: request.userSecret,
    };
    const deposit: Deposit = {
      id,
      ownerKey: digest(request.accessToken),
      readerKey: digest(request.userSecret),
      idempotencyKey: request.idempotencyKey,
      fingerprint: digest(JSON.stringify([amountMinor, wallet.currency, request.senderID, wallet.id])),
      status: 'initialized',
      step: 'resolve-bank',
      version: 0,
      amountMinor,
      currency: wallet.currency,
      senderId: request.senderID,
      walletAccountId: wallet.id,
      sealedCredentials: await this.deps.vault.seal(id, credentials),
      retries: 0,
      history: [{ step: 'resolve-bank', status: 'initialized', at: now }],
      createdAt: now,
      updatedAt: now,
      checkAt: now + this.options.stallAfterMs,
    };

    const outcome = await this.deps.store.create(deposit);
    if (outcome.created) {
      this.deps.observer?.transitioned(deposit.status, deposit.step);
      await this.emit(deposit);
      return { status: 202, body: this.view(deposit) };
    }
    const existing = outcome.existing;
    if (
      !existing ||
      !matchesDigest(request.userSecret, existing.readerKey) ||
      existing.fingerprint !== deposit.fingerprint
    ) {
      throw new DepositError(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was used for a different deposit request',
      );
    }
    if (request.userInputs?.length && existing.status === 'user_input_required') {
      return { status: 200, body: this.view(await this.resume(existing, request.userInputs)) };
    }
    return { status: 200, body: this.view(existing) };
  }

  /** The deposit as its owner sees it; to anyone else it does not exist. */
  async read(depositId: string, accessToken: string, userSecret: string) {
    const deposit = await this.deps.store.get(depositId);
    // Both are compared, in constant time: a deposit is the connection's (token) and the user's (secret).
    const owner = matchesDigest(accessToken, deposit?.ownerKey);
    const reader = matchesDigest(userSecret, deposit?.readerKey);
    if (!deposit || !owner || !reader) throw new DepositError('DEPOSIT_NOT_FOUND', `No deposit ${depositId}`);
    return { status: 200, body: this.view(deposit) };
  }

  private async resume(deposit: Deposit, userInputs: UserInput[]): Promise<Deposit> {
    if (deposit.pendingInput && this.now() >= deposit.pendingInput.expiresAt) {
      return (
        (await this.fail(deposit, 'INPUT_EXPIRED', 'The answer came after the deposit stopped waiting')) ??
        deposit
      );
    }
    const sealedAnswers = await this.deps.vault.seal(deposit.id, userInputs);
    const next = await this.advance(deposit, { status: 'initialized', sealedAnswers }, 'input answered');
    if (!next) return (await this.deps.store.get(deposit.id)) ?? deposit;
    await this.emit(next);
    return next;
  }

  private view(deposit: Deposit) {
    return depositView(deposit, this.now(), (minor) => fromMinorUnits(minor, deposit.currency));
  }

  // -------------------------------------------------------------------------------------------
  // Steps

  /** Works one step message. Messages for a step the deposit has left are dropped. */
  async handle(message: StepMessage): Promise<void> {
    const deposit = await this.deps.store.get(message.depositId);
    if (!deposit || deposit.step === 'completed') return;
    if (message.kind === 'expire-input') return this.expireInput(deposit, message);

    const wakesTransfer = message.step === 'transfer' && deposit.step === 'wait-cooldown';
    if (deposit.version !== message.version || (deposit.step !== message.step && !wakesTransfer)) {
      return this.onStale(deposit, message);
    }
    if (deposit.status !== 'initialized') return; // waits for the caller's answer
    const steps = {
      'resolve-bank': () => this.resolveBank(deposit),
      'ensure-beneficiary': () => this.ensureBeneficiary(deposit),
      'wait-cooldown': () => this.armWake(deposit),
      transfer: () => this.transfer(deposit),
    };
    await steps[message.step]();
  }

  /**
   * A message older than the deposit. If the deposit has sat still for a while, the message that
   * should have moved it may be lost: send it again (its duplicates are dropped the same way).
   */
  private async onStale(deposit: Deposit, message: StepMessage) {
    const idle = this.now() - deposit.updatedAt > this.options.stallAfterMs;
    if (idle && deposit.status === 'initialized' && message.version < deposit.version)
      await this.emit(deposit);
  }

  private async resolveBank(deposit: Deposit) {
    const called = await this.callUnderLease(deposit, [], (credentials) =>
      this.deps.provider.getMetadata(credentials),
    );
    if (!called) return;
    await this.deps.store.releaseLease(deposit.ownerKey, called.lease);
    const metadata = called.value;
    if (metadata instanceof ProviderRefusal) return this.fail(deposit, metadata.type, metadata.msg);
    const accountsMetadata = metadata.response.accountsMetadata;
    if (metadata.status !== 'done' || !accountsMetadata) {
      return this.fail(deposit, 'PROVIDER_PROTOCOL_ERROR', 'The bank metadata came without accountsMetadata');
    }
    const wallet = this.wallet(deposit);
    const refusal = checkBounds(accountsMetadata, wallet, deposit.amountMinor);
    if (refusal) return this.fail(deposit, refusal.type, refusal.msg);

    const bank: BankFacts = {
      swiftCode: accountsMetadata.swiftCode,
      bankName: accountsMetadata.bankName,
      isCreateBeneficiaryEndpointRequired: accountsMetadata.isCreateBeneficiaryEndpointRequired,
      hidesNewBeneficiaries: !accountsMetadata.willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod,
      coolDownMs: periodMs(accountsMetadata.beneficiaryCoolDownPeriod),
    };
    const step = bank.isCreateBeneficiaryEndpointRequired ? 'ensure-beneficiary' : 'transfer';
    const next = await this.advance(deposit, { step, bank }, `bank: ${bank.bankName}`);
    if (next) await this.emit(next);
  }

  /**
   * One beneficiary per user connection and wallet account, however many deposits run at once:
   *   1. our record says it exists: use it;
   *   2. another deposit is creating it: come back shortly;
   *   3. else claim its creation, look for it in the list (when the bank lists new ones), and create it.
   */
  private async ensureBeneficiary(deposit: Deposit) {
    const { store } = this.deps;
    const now = this.now();
    const existing = await store.getBeneficiary(deposit.ownerKey, deposit.walletAccountId);
    if (existing?.state === 'created' && existing.beneficiaryId) {
      return this.useBeneficiary(
        deposit,
        existing.beneficiaryId,
        existing.cooldownUntil ?? now,
        !existing.used,
      );
    }
    const claim = {
      ownerKey: deposit.ownerKey,
      walletAccountId: deposit.walletAccountId,
      state: 'creating' as const,
      depositId: deposit.id,
      claimedAt: existing?.depositId === deposit.id ? existing.claimedAt : now,
    };
    if (
      existing?.depositId !== deposit.id &&
      !(await store.claimBeneficiary(claim, now - this.options.claimStaleMs))
    ) {
      return this.later(deposit);
    }

    const wallet = this.wallet(deposit);
    const bank = this.bank(deposit);
    const lookupAt = deposit.beneficiaryLookupAt;
    if (lookupAt !== undefined && lookupAt > now) return this.wakeAt(deposit, 'ensure-beneficiary', lookupAt);
    const answer = await this.answerFor(deposit);
    // The list shows the beneficiary at once, or (banks that hide new ones) once its cool-down is over.
    const listFirst = !answer && (!bank.hidesNewBeneficiaries || lookupAt !== undefined);
    const called = await this.callUnderLease(deposit, ['BENEFICIARY_ALREADY_EXISTS'], async (credentials) => {
      if (listFirst) {
        const listed = await this.deps.provider.listBeneficiaries(credentials);
        const match = listed.response.beneficiaries?.find(
          (candidate) =>
            candidate.name === wallet.beneficiary.name &&
            (wallet.beneficiary.accountNumber === '' ||
              candidate.accountNumber === wallet.beneficiary.accountNumber),
        );
        if (match) return { found: match.id, approved: match.status === 'approved' };
      }
      return this.deps.provider.createBeneficiary(credentials, wallet.beneficiary, answer);
    });
    if (!called) return;
    const { value: outcome, lease } = called;
    if (
      !(outcome instanceof ProviderRefusal) &&
      'status' in outcome &&
      outcome.status === 'user_input_required'
    ) {
      return this.pause(deposit, outcome, lease);
    }
    await store.releaseLease(deposit.ownerKey, lease);

    if (outcome instanceof ProviderRefusal) {
      // It exists: an earlier attempt whose answer was lost created it. Find it in the list, at
      // once if the bank lists new beneficiaries, else once its cool-down has certainly passed.
      if (lookupAt !== undefined || !bank.hidesNewBeneficiaries) {
        return this.fail(
          deposit,
          'BENEFICIARY_UNRESOLVED',
          'The bank has the beneficiary but does not list it',
        );
      }
      const at = this.now() + bank.coolDownMs + 1_000;
      const next = await this.advance(
        deposit,
        { beneficiaryLookupAt: at },
        `beneficiary exists; looking it up at ${new Date(at).toISOString()}`,
      );
      if (!next) return;
      await store.updateBeneficiaryClaim({ ...claim, claimedAt: at });
      return this.wakeAt(next, 'ensure-beneficiary', at);
    }
    if ('found' in outcome) {
      const cooldownUntil = outcome.approved ? this.now() : this.now() + bank.coolDownMs;
      await store.updateBeneficiaryClaim({
        ...claim,
        state: 'created',
        beneficiaryId: outcome.found,
        cooldownUntil,
      });
      return this.useBeneficiary(deposit, outcome.found, cooldownUntil, true);
    }
    if (outcome.status !== 'done' || !outcome.response.reference) {
      return this.fail(
        deposit,
        'PROVIDER_PROTOCOL_ERROR',
        'The created beneficiary came without a reference',
      );
    }
    const beneficiaryId = outcome.response.reference;
    const cooldownUntil = this.now() + bank.coolDownMs;
    await store.updateBeneficiaryClaim({ ...claim, state: 'created', beneficiaryId, cooldownUntil });
    return this.useBeneficiary(deposit, beneficiaryId, cooldownUntil, true);
  }

  private async useBeneficiary(
    deposit: Deposit,
    beneficiaryId: string,
    cooldownUntil: number,
    firstUse: boolean,
  ) {
    const coolingDown = cooldownUntil > this.now();
    const next = await this.advance(
      deposit,
      {
        step: coolingDown ? 'wait-cooldown' : 'transfer',
        beneficiaryId,
        cooldownUntil,
        sendBeneficiaryDetails: firstUse,
        beneficiaryLookupAt: undefined,
        pendingInput: undefined,
        sealedAnswers: undefined,
      },
      coolingDown ? `cooling down until ${new Date(cooldownUntil).toISOString()}` : undefined,
    );
    if (!next) return;
    if (coolingDown) {
      await this.publish(next, 'deposit.cooling_down', { resumesAt: new Date(cooldownUntil).toISOString() });
    }
    await this.emit(next);
  }

  /** Arms the wake-up of a deposit in its cool-down: the transfer step, when the cool-down ends. */
  private armWake(deposit: Deposit) {
    return this.wakeAt(deposit, 'transfer', deposit.cooldownUntil ?? this.now());
  }

  /** Sends a step message at a time: a schedule for long waits, a delayed message for short ones. */
  private async wakeAt(deposit: Deposit, step: StepMessage['step'], until: number) {
    const wait = until - this.now();
    const message: StepMessage = { depositId: deposit.id, step, version: deposit.version, kind: 'run' };
    if (wait > this.options.longWaitMs) {
      // Deterministic name: arming twice is arming once. The scheduler targets the transfer queue;
      // every step handler works any step message, by the step it names.
      await this.deps.scheduler.scheduleAt(
        `${deposit.id}-${step}-${Math.floor(until / 1000)}`,
        new Date(until),
        message,
      );
    } else {
      await this.deps.queues.send(
        message,
        Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, Math.ceil(wait / 1000))),
      );
    }
  }

  /**
   * The transfer, at most once:
   *   1. a deposit woken before its cool-down ends waits again;
   *   2. an attempt already recorded means money may have moved: never call again;
   *   3. record the attempt (conditional on the version), then call the provider once.
   */
  private async transfer(woken: Deposit) {
    let deposit = woken;
    if (deposit.step === 'wait-cooldown') {
      if ((deposit.cooldownUntil ?? 0) > this.now()) return this.armWake(deposit);
      const moved = await this.advance(deposit, { step: 'transfer' }, 'cool-down over');
      if (!moved) return;
      deposit = moved;
    }
    if (deposit.transferAttempt) {
      return this.fail(
        deposit,
        'TRANSFER_OUTCOME_UNKNOWN',
        'A transfer attempt was interrupted; reconcile with the provider before retrying',
      );
    }
    const answer = await this.answerFor(deposit);
    const lease = await this.takeLease(deposit);
    if (!lease) return this.later(deposit);
    const attempting = await this.advance(deposit, {
      transferAttempt: { at: this.now(), answering: answer !== undefined },
    });
    if (!attempting) return this.deps.store.releaseLease(deposit.ownerKey, lease);

    crashPoints.check('before-provider-call', 'transfer', deposit.ownerKey);
    let outcome: ProviderAnswer<{ reference?: string | undefined }>;
    try {
      outcome = await this.callTransfer(attempting, answer);
    } catch (error) {
      return this.afterTransferError(attempting, error, lease);
    }
    crashPoints.check('after-provider-call', 'transfer', deposit.ownerKey);
    if (outcome.status === 'user_input_required') {
      return this.pause({ ...attempting, transferAttempt: undefined }, outcome, lease);
    }
    await this.deps.store.releaseLease(deposit.ownerKey, lease);
    if (outcome.status !== 'done' || !outcome.response.reference) {
      return this.fail(attempting, 'TRANSFER_OUTCOME_UNKNOWN', `The transfer answered ${outcome.status}`);
    }
    const done = await this.advance(attempting, {
      status: 'done',
      step: 'completed',
      reference: outcome.response.reference,
      transferAttempt: undefined,
    });
    if (!done) return;
    if (attempting.bank?.isCreateBeneficiaryEndpointRequired) {
      await this.deps.store.markBeneficiaryUsed(deposit.ownerKey, deposit.walletAccountId);
    }
    await this.publish(done, 'deposit.done', { reference: done.reference });
  }

  private async callTransfer(deposit: Deposit, answer: InputAnswer | undefined) {
    const credentials = await this.credentials(deposit);
    const wallet = this.wallet(deposit);
    const order = {
      amountMinor: deposit.amountMinor,
      currency: deposit.currency,
      senderID: deposit.senderId,
    };
    if (!this.bank(deposit).isCreateBeneficiaryEndpointRequired) {
      return this.deps.provider.createAutoflowTransfer(
        credentials,
        { ...order, beneficiary: wallet.inline },
        answer,
      );
    }
    return this.deps.provider.createTransfer(
      credentials,
      {
        ...order,
        receiverID: deposit.beneficiaryId ?? '',
        ...(deposit.sendBeneficiaryDetails ? { beneficiary: wallet.inline } : {}),
      },
      answer,
    );
  }

  private async afterTransferError(deposit: Deposit, error: unknown, lease: string) {
    await this.deps.store.releaseLease(deposit.ownerKey, lease);
    if (error instanceof ProviderUnknownOutcome) {
      return this.fail(
        deposit,
        'TRANSFER_OUTCOME_UNKNOWN',
        `The transfer's outcome is unknown: ${error.reason}`,
      );
    }
    if (!(error instanceof ProviderRefusal)) throw error;
    // A refusal: nothing moved, so the attempt record goes and some refusals are worth another try.
    const cleared = { transferAttempt: undefined };
    switch (error.type) {
      case 'OPERATION_IN_PROGRESS': {
        if (deposit.retries >= this.options.maxRetries) break;
        const next = await this.advance(
          deposit,
          { ...cleared, retries: deposit.retries + 1 },
          'connection busy',
        );
        if (next) await this.later(next);
        return;
      }
      case 'BENEFICIARY_DETAILS_REQUIRED': {
        if (deposit.sendBeneficiaryDetails) break;
        const next = await this.advance(
          deposit,
          { ...cleared, sendBeneficiaryDetails: true },
          'bank asked for details',
        );
        if (next) await this.emit(next);
        return;
      }
      case 'BENEFICIARY_COOL_DOWN_PERIOD': {
        const until =
          Date.parse(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/.exec(error.msg)?.[0] ?? '') || this.now() + 60_000;
        const next = await this.advance(deposit, { ...cleared, step: 'wait-cooldown', cooldownUntil: until });
        if (next) await this.emit(next);
        return;
      }
    }
    return this.fail(deposit, error.type, error.msg);
  }

  /** Stops at a provider question; the lease stays with the deposit until the answer or expiry. */
  private async pause(
    deposit: Deposit,
    answer: Extract<ProviderAnswer<unknown>, { status: 'user_input_required' }>,
    heldLease?: string,
  ) {
    const expiresAt = this.now() + this.options.inputTtlMs;
    const next = await this.advance(
      deposit,
      {
        status: 'user_input_required',
        pendingInput: { providerOperationId: answer.id, userInputs: answer.userInputs, expiresAt },
        sealedAnswers: undefined,
      },
      'waiting for user input',
    );
    if (!next) return;
    await this.deps.store.acquireLease(next.ownerKey, inputLease(next), expiresAt, this.now(), heldLease);
    if (next.step === 'ensure-beneficiary') {
      // The creation claim must not look abandoned while the bank waits for the caller.
      await this.deps.store.updateBeneficiaryClaim({
        ownerKey: next.ownerKey,
        walletAccountId: next.walletAccountId,
        state: 'creating',
        depositId: next.id,
        claimedAt: expiresAt,
      });
    }
    const expiry: StepMessage = {
      depositId: next.id,
      step: next.step as StepMessage['step'],
      version: next.version,
      kind: 'expire-input',
    };
    if (this.options.inputTtlMs > this.options.longWaitMs) {
      await this.deps.scheduler.scheduleAt(`${next.id}-input-${next.version}`, new Date(expiresAt), expiry);
    } else {
      await this.deps.queues.send(
        expiry,
        Math.min(MAX_SQS_DELAY_SECONDS, Math.ceil(this.options.inputTtlMs / 1000)),
      );
    }
    await this.publish(next, 'deposit.user_input_required', {
      userInputs: answer.userInputs,
      inputExpiresAt: new Date(expiresAt).toISOString(),
    });
  }

  private async expireInput(deposit: Deposit, message: StepMessage) {
    if (deposit.version !== message.version || deposit.status !== 'user_input_required') return;
    if ((deposit.pendingInput?.expiresAt ?? 0) > this.now()) {
      // Woken early: look again when it is due.
      const wait = (deposit.pendingInput?.expiresAt ?? 0) - this.now();
      return this.deps.queues.send(message, Math.min(MAX_SQS_DELAY_SECONDS, Math.ceil(wait / 1000)));
    }
    await this.fail(deposit, 'INPUT_EXPIRED', 'Nobody answered the bank in time');
  }

  // -------------------------------------------------------------------------------------------
  // The sweeper

  /** Re-drives deposits that made no progress for too long: a lost message must not strand one. */
  async sweep(limit = 100): Promise<number> {
    const stalled = await this.deps.store.findStalled(this.now(), limit);
    for (const deposit of stalled) {
      if (deposit.status === 'user_input_required') {
        const step = deposit.step as StepMessage['step'];
        await this.deps.queues.send({
          depositId: deposit.id,
          step,
          version: deposit.version,
          kind: 'expire-input',
        });
      } else if (deposit.status === 'initialized') {
        await this.emit(deposit);
      }
    }
    return stalled.length;
  }

  // -------------------------------------------------------------------------------------------
  // Plumbing

  /**
   * Calls the provider under the connection's lease and hands the lease back with the answer: the
   * caller releases it, or keeps it while the bank waits for input. Refusals of the `tolerated`
   * types come back as values; other refusals fail the deposit, unknown outcomes retry it (the
   * calls made here are safe to repeat), and then the lease is released here.
   */
  private async callUnderLease<T>(
    deposit: Deposit,
    tolerated: readonly string[],
    call: (credentials: DepositCredentials) => Promise<T>,
  ): Promise<{ value: T | ProviderRefusal; lease: string } | undefined> {
    const lease = await this.takeLease(deposit);
    if (!lease) {
      await this.later(deposit);
      return undefined;
    }
    try {
      crashPoints.check('before-provider-call', deposit.step, deposit.ownerKey);
      const value = await call(await this.credentials(deposit));
      crashPoints.check('after-provider-call', deposit.step, deposit.ownerKey);
      return { value, lease };
    } catch (error) {
      if (error instanceof ProviderRefusal && tolerated.includes(error.type)) return { value: error, lease };
      await this.deps.store.releaseLease(deposit.ownerKey, lease);
      if (error instanceof ProviderRefusal) {
        if (error.type === 'OPERATION_IN_PROGRESS') await this.retry(deposit, 'connection busy');
        else await this.fail(deposit, error.type, error.msg);
        return undefined;
      }
      if (error instanceof ProviderUnknownOutcome) {
        await this.retry(deposit, `provider ${error.reason}`);
        return undefined;
      }
      throw error;
    }
  }

  /**
   * Takes the connection's lease, waiting a little if another step holds it: a provider call takes
   * a fraction of a second, while coming back through the queue costs at least a second.
   */
  private async takeLease(deposit: Deposit): Promise<string | undefined> {
    const holder = `${deposit.id}#${randomUUID()}`;
    const giveUpAt = this.now() + this.options.leasePatienceMs;
    for (let pause = 25; ; pause = Math.min(200, pause * 2)) {
      const now = this.now();
      const until = now + this.options.leaseMs;
      if (await this.deps.store.acquireLease(deposit.ownerKey, holder, until, now, inputLease(deposit)))
        return holder;
      if (now + pause > giveUpAt) return undefined;
      await sleep(pause + Math.floor(Math.random() * pause));
    }
  }

  private async retry(deposit: Deposit, reason: string) {
    if (deposit.retries >= this.options.maxRetries) {
      return this.fail(
        deposit,
        'PROVIDER_UNAVAILABLE',
        `Gave up after ${deposit.retries} retries: ${reason}`,
      );
    }
    const next = await this.advance(deposit, { retries: deposit.retries + 1 }, reason);
    if (next) await this.later(next);
  }

  /** Sends the deposit's current step again after a short, growing delay. */
  private later(deposit: Deposit) {
    const delay = Math.min(30, 1 + deposit.retries * 2);
    return this.deps.queues.send(
      { depositId: deposit.id, step: workStep(deposit), version: deposit.version, kind: 'run' },
      delay,
    );
  }

  private emit(deposit: Deposit) {
    return this.deps.queues.send({
      depositId: deposit.id,
      step: workStep(deposit),
      version: deposit.version,
      kind: 'run',
    });
  }

  private async fail(deposit: Deposit, type: string, msg: string) {
    const failed = await this.advance(deposit, {
      status: 'failed',
      step: 'completed',
      failure: { type, msg },
      pendingInput: undefined,
    });
    await this.deps.store.releaseLease(deposit.ownerKey, inputLease(deposit));
    if (deposit.step === 'ensure-beneficiary') {
      await this.deps.store.releaseBeneficiaryClaim(deposit.ownerKey, deposit.walletAccountId, deposit.id);
    }
    if (failed) await this.publish(failed, 'deposit.failed', { type, msg });
    return failed;
  }

  /** The conditional transition: writes the next version if the deposit is still at this one. */
  private async advance(
    deposit: Deposit,
    changes: Partial<Deposit>,
    note?: string,
  ): Promise<Deposit | undefined> {
    const now = this.now();
    const next: Deposit = { ...deposit, ...changes, version: deposit.version + 1, updatedAt: now };
    if (!('retries' in changes)) next.retries = next.step === deposit.step ? deposit.retries : 0;
    const moved = next.step !== deposit.step || next.status !== deposit.status;
    if (moved || note) {
      next.history = [
        ...deposit.history,
        { step: next.step, status: next.status, at: now, ...(note ? { note } : {}) },
      ];
    }
    if (next.status === 'done' || next.status === 'failed') {
      next.sealedCredentials = undefined;
      next.sealedAnswers = undefined;
      next.checkAt = undefined;
    } else {
      next.checkAt = this.checkAt(next, now);
    }
    crashPoints.check('before-state-write', deposit.step, deposit.ownerKey);
    if (!(await this.deps.store.save(next, deposit.version))) return undefined;
    if (moved) this.deps.observer?.transitioned(next.status, next.step);
    crashPoints.check('after-state-write', deposit.step, deposit.ownerKey);
    return next;
  }

  private checkAt(deposit: Deposit, now: number) {
    if (deposit.status === 'user_input_required')
      return (deposit.pendingInput?.expiresAt ?? now) + this.options.stallAfterMs;
    if (deposit.step === 'wait-cooldown')
      return Math.max(now, deposit.cooldownUntil ?? now) + this.options.stallAfterMs;
    if (deposit.beneficiaryLookupAt)
      return Math.max(now, deposit.beneficiaryLookupAt) + this.options.stallAfterMs;
    return now + this.options.stallAfterMs;
  }

  private async publish(deposit: Deposit, type: DepositEvent['type'], data: Record<string, unknown>) {
    await this.deps.notifications.publish({
      id: `${deposit.id}.v${deposit.version}`,
      type,
      depositId: deposit.id,
      occurredAt: new Date(deposit.updatedAt).toISOString(),
      data: { status: deposit.status, step: deposit.step, ...data },
    });
  }

  private credentials(deposit: Deposit): Promise<DepositCredentials> {
    if (!deposit.sealedCredentials) throw new Error(`deposit ${deposit.id} has no credentials`);
    return this.deps.vault.open<DepositCredentials>(deposit.id, deposit.sealedCredentials);
  }

  /** The caller's answers to the provider's pending question, if there are any. */
  private async answerFor(deposit: Deposit): Promise<InputAnswer | undefined> {
    if (!deposit.pendingInput || !deposit.sealedAnswers) return undefined;
    const answers = await this.deps.vault.open<UserInput[]>(deposit.id, deposit.sealedAnswers);
    const userInputs = deposit.pendingInput.userInputs.map((input) => ({
      ...input,
      answer: answers.find((candidate) => candidate.id === input.id)?.answer ?? '',
    }));
    return { id: deposit.pendingInput.providerOperationId, userInputs };
  }

  private wallet(deposit: Deposit): WalletAccount {
    const wallet = this.wallets.get(deposit.walletAccountId);
    if (!wallet) throw new Error(`wallet account ${deposit.walletAccountId} is no longer configured`);
    return wallet;
  }

  private bank(deposit: Deposit): BankFacts {
    if (!deposit.bank) throw new Error(`deposit ${deposit.id} has no bank facts at ${deposit.step}`);
    return deposit.bank;
  }
}

function workStep(deposit: Deposit): StepMessage['step'] {
  if (deposit.step === 'completed') throw new Error(`deposit ${deposit.id} is complete`);
  return deposit.step;
}

function inputLease(deposit: Deposit) {
  return `${deposit.id}#input`;
}

/** The bank's minimum for this transfer, and a currency the bank handles. */
function checkBounds(metadata: AccountsMetadata, wallet: WalletAccount, amountMinor: number) {
  const sameBank = (code: string) => code.trim().toUpperCase().slice(0, 8);
  const type = sameBank(wallet.inline.swiftCode) === sameBank(metadata.swiftCode) ? 'same' : 'local';
  const bounds = metadata.transferBounds.filter((bound) => bound.currency.code === wallet.currency);
  if (metadata.transferBounds.length > 0 && bounds.length === 0) {
    return { type: 'CURRENCY_NOT_SUPPORTED', msg: `The bank does not transfer ${wallet.currency}` };
  }
  const bound = bounds.find((candidate) => candidate.type === type);
  if (
    bound &&
    isCurrencyCode(wallet.currency) &&
    amountMinor < toMinorUnits(bound.minimum, wallet.currency)
  ) {
    return {
      type: 'AMOUNT_BELOW_MINIMUM',
      msg: `The bank's minimum for a ${type} transfer is ${bound.minimum} ${wallet.currency}`,
    };
  }
  return undefined;
}
