/**
 * The deposits API's create (and the sources API's): starts a deposit, or answers for the one its
 * idempotency key started.
 *   1. the wallet account, and the amount in its currency's minor units, at most the account's largest;
 *   2. the deposit and its idempotency record, written together, credentials sealed: at
 *      resolve-bank, or at the transfer when its way there is known (`known-route.ts`);
 *   3. the first step's message;
 *   4. a repeat of the same request answers the same deposit; a repeat with `userInputs` resumes
 *      a deposit waiting for them, at the step that asked; a create with a `clientReference` its
 *      backend gave before answers that deposit (the reference's record is written in the same
 *      conditional transaction, so two racing creates make one deposit).
 */
import { ulid } from 'ulid';
import { AmountError, fromMinorUnits, toMinorUnits } from '#shared/money';
import type { UserInput } from '#shared/provider/interface/schemas';
import { digest } from '#shared/secrets';
import { type KnownRouteContext, knownRoute } from '../journey/known-route.ts';
import { advance, type FailContext, fail, sendStep } from '../journey/transitions.ts';
import { businessFieldsOf, fingerprintOf } from '../model/business.ts';
import { type Deposit, isSource } from '../model/deposit.ts';
import { DepositError } from '../model/errors.ts';
import { sourceView } from '../model/sources.ts';
import { depositView } from '../model/views.ts';
import type { Wallets } from '../model/wallets.ts';
import type { StepQueues } from '../ports/messaging.ts';
import type { CredentialSealer, DepositCredentials, OwnerDigests } from '../ports/provider.ts';
import type { IdempotencyRecords } from '../ports/records.ts';
import type { SendsOf } from '../reach.ts';
import { backendKeyOf, sees } from './caller.ts';

export interface StartDeposit {
  accessToken: string;
  /** The backend that calls (`caller.ts`): the deposit is its own. */
  backend?: string | undefined;
  idempotencyKey: string;
  appSecret: string;
  userSecret: string;
  amount: number;
  senderID: string;
  walletAccountID?: string | undefined;
  userInputs?: UserInput[] | undefined;
  /** The caller's own reference (unique per backend) and map (`business.ts`). */
  clientReference?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

export interface StartContext extends Omit<FailContext, 'claims'> {
  claims: FailContext['claims'] & KnownRouteContext['claims'];
  banks: KnownRouteContext['banks'];
  idempotency: IdempotencyRecords;
  vault: CredentialSealer;
  wallets: Wallets;
  queues: StepQueues<SendsOf<'deposits-create'>>;
  /** The keys of the caller's token and user secret (`ownerKey`, `readerKey`). */
  ownerDigests: OwnerDigests;
  /** The trace the create works in, which the deposit keeps (`Deposit.trace`); none untraced. */
  trace?: () => string | undefined;
}

export async function startDeposit(request: StartDeposit, ctx: StartContext) {
  const wallet = walletFor(request.walletAccountID, ctx);
  let amountMinor: number;
  try {
    amountMinor = toMinorUnits(request.amount, wallet.currency);
  } catch (error) {
    if (error instanceof AmountError)
      throw new DepositError('BAD_REQUEST', `Invalid request: amount: ${error.message}`, [
        `amount: ${error.message}`,
      ]);
    throw error;
  }
  if (amountMinor > wallet.maxDepositMinor) {
    const most = `${fromMinorUnits(wallet.maxDepositMinor, wallet.currency)} ${wallet.currency}`;
    throw new DepositError('AMOUNT_ABOVE_MAXIMUM', `The largest deposit into ${wallet.id} is ${most}`);
  }
  const business = businessFieldsOf(request);
  const fingerprint = digest(
    JSON.stringify([amountMinor, wallet.currency, request.senderID, wallet.id, ...fingerprintOf(business)]),
  );
  const deposit = await newRecord(`dep_${ulid()}`, request, ctx, {
    ...business,
    fingerprint,
    amountMinor,
    currency: wallet.currency,
    senderId: request.senderID,
    walletAccountId: wallet.id,
  });
  const route = await knownRoute(ctx, deposit, wallet, deposit.createdAt);
  return begin(ctx, { ...deposit, ...route }, request, depositView);
}

export type StartSource = Omit<StartDeposit, 'amount' | 'senderID' | 'clientReference' | 'metadata'>;

/**
 * The sources API's create: a payment source for the caller's connection and the wallet account,
 * which runs the deposit's steps up to the transfer (`sources.ts`); the same idempotency, answers and
 * resumption as a deposit's.
 */
export async function startSource(request: StartSource, ctx: StartContext) {
  const wallet = walletFor(request.walletAccountID, ctx);
  const source = await newRecord(`src_${ulid()}`, request, ctx, {
    purpose: 'source',
    fingerprint: digest(JSON.stringify(['source', wallet.id])),
    amountMinor: 0,
    currency: wallet.currency,
    senderId: '',
    walletAccountId: wallet.id,
  });
  return begin(ctx, source, request, sourceView);
}

function walletFor(walletAccountID: string | undefined, ctx: StartContext) {
  const walletId = walletAccountID ?? ctx.wallets.defaultId;
  const wallet = ctx.wallets.find(walletId);
  if (!wallet) throw new DepositError('INVALID_WALLET_ACCOUNT_ID', `No wallet account ${walletId}`);
  return wallet;
}

/** A new deposit (or source) at its first step, its credentials sealed. */
async function newRecord(
  id: string,
  request: StartSource,
  ctx: StartContext,
  what: Pick<
    Deposit,
    | 'purpose'
    | 'fingerprint'
    | 'amountMinor'
    | 'currency'
    | 'senderId'
    | 'walletAccountId'
    | 'clientReference'
    | 'metadata'
  >,
): Promise<Deposit> {
  const now = ctx.clock.now();
  const credentials: DepositCredentials = {
    accessToken: request.accessToken,
    appSecret: request.appSecret,
    userSecret: request.userSecret,
  };
  return {
    id,
    ...(what.purpose ? { purpose: what.purpose } : {}),
    ownerKey: ctx.ownerDigests.of(request.accessToken),
    readerKey: ctx.ownerDigests.of(request.userSecret),
    ...(request.backend === undefined ? {} : { backendKey: backendKeyOf(request.backend, ctx.ownerDigests) }),
    idempotencyKey: request.idempotencyKey,
    fingerprint: what.fingerprint,
    ...(what.clientReference === undefined ? {} : { clientReference: what.clientReference }),
    ...(what.metadata === undefined ? {} : { metadata: what.metadata }),
    status: 'initialized',
    step: 'resolve-bank',
    version: 0,
    amountMinor: what.amountMinor,
    currency: what.currency,
    senderId: what.senderId,
    walletAccountId: what.walletAccountId,
    sealedCredentials: await ctx.vault.seal('credentials', id, credentials),
    stepCounters: { retries: 0 },
    history: [{ step: 'resolve-bank', status: 'initialized', at: now }],
    createdAt: now,
    updatedAt: now,
    checkAt: now + ctx.settings.stallAfterMs,
    ...traceOf(ctx),
  };
}

function traceOf(ctx: Pick<StartContext, 'trace'>): Pick<Deposit, 'trace'> {
  const trace = ctx.trace?.();
  return trace === undefined ? {} : { trace };
}

/** What a create did: started the record (`started`), or found the one its key started; and its view. */
export interface Started<V> {
  started: boolean;
  view: V;
}

/**
 * Writes the record with its idempotency record and sends its first step; or, for a key used
 * already, answers the record it started (resumed with the caller's answers when it waits for them).
 */
async function begin<V>(
  ctx: StartContext,
  record: Deposit,
  request: Pick<StartDeposit, 'accessToken' | 'backend' | 'userSecret' | 'userInputs'>,
  view: (record: Deposit, now: number) => V,
): Promise<Started<V>> {
  const now = ctx.clock.now();
  const outcome = await ctx.idempotency.createOnce(record);
  if (outcome.created) {
    ctx.observer?.transitioned(record.status, record.step);
    await sendStep(ctx, record, record.step === 'transfer' ? 'transfer' : 'resolve-bank');
    return { started: true, view: view(record, now) };
  }
  const existing = outcome.depositId ? await ctx.deposits.get(outcome.depositId) : undefined;
  if (outcome.taken === 'clientReference') {
    // The reference is the backend's: its first deposit answers, whatever this request says (200).
    if (!sees(existing, request, ctx.ownerDigests) || isSource(existing))
      throw new DepositError(
        'CLIENT_REFERENCE_REUSED',
        'This clientReference belongs to a deposit this caller cannot see',
      );
    return { started: false, view: view(existing, now) };
  }
  if (
    !sees(existing, request, ctx.ownerDigests) ||
    existing.fingerprint !== record.fingerprint ||
    existing.purpose !== record.purpose
  ) {
    const what = isSource(record) ? 'source' : 'deposit';
    throw new DepositError(
      'IDEMPOTENCY_KEY_REUSED',
      `This Idempotency-Key was used for a different ${what} request`,
    );
  }
  if (request.userInputs?.length && existing.status === 'user_input_required') {
    const resumed = await resume(ctx, existing, request.userInputs);
    return { started: false, view: view(resumed, ctx.clock.now()) };
  }
  return { started: false, view: view(existing, now) };
}

/** What resuming a deposit with its caller's answers touches: its write (or its failure), the sealing, the step. */
export type ResumeContext = Pick<
  StartContext,
  | 'deposits'
  | 'clock'
  | 'settings'
  | 'observer'
  | 'leases'
  | 'leaseWaiters'
  | 'followers'
  | 'vault'
  | 'queues'
> &
  Pick<FailContext, 'claims'>;

/** The caller's answers: sealed on the deposit, which goes back to the step that asked. */
export async function resume(
  ctx: ResumeContext,
  deposit: Deposit,
  userInputs: UserInput[],
): Promise<Deposit> {
  if (deposit.pendingInput && ctx.clock.now() >= deposit.pendingInput.expiresAt) {
    const msg = 'The answer came after the deposit stopped waiting';
    return (await fail(ctx, deposit, 'INPUT_EXPIRED', msg)) ?? deposit;
  }
  const step = deposit.step;
  if (step === 'wait-cooldown' || step === 'completed') {
    throw new Error(`deposit ${deposit.id} waits for input at ${step}, which asks none`);
  }
  const sealedAnswers = await ctx.vault.seal('answers', deposit.id, userInputs);
  const next = await advance(ctx, deposit, { status: 'initialized', sealedAnswers }, 'input answered');
  if (!next) return (await ctx.deposits.get(deposit.id)) ?? deposit;
  await sendStep(ctx, next, step);
  return next;
}
