/**
 * The deposits API's create: starts a deposit, or answers for the one its idempotency key started.
 *   1. the wallet account, and the amount in its currency's minor units;
 *   2. the deposit and its idempotency record, written together, credentials sealed;
 *   3. the first step's message;
 *   4. a repeat of the same request answers the same deposit; a repeat with `userInputs` resumes
 *      a deposit waiting for them, at the step that asked.
 */
import { ulid } from 'ulid';
import { AmountError, toMinorUnits } from '#shared/money';
import { digest, matchesDigest } from '#shared/secrets';
import type { UserInput } from '#shared/spec/schemas';
import { DepositError } from './errors.ts';
import { type Deposit, depositView } from './model.ts';
import type {
  CredentialSealer,
  DepositCredentials,
  IdempotencyRecords,
  StepQueues,
  Wallets,
} from './ports.ts';
import type { SendsOf } from './reach.ts';
import { advance, type FailContext, fail, sendStep } from './transitions.ts';

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

export interface StartContext extends FailContext {
  idempotency: IdempotencyRecords;
  vault: CredentialSealer;
  wallets: Wallets;
  queues: StepQueues<SendsOf<'create'>>;
}

export async function startDeposit(request: StartDeposit, ctx: StartContext) {
  const walletId = request.walletAccountID ?? ctx.wallets.defaultId;
  const wallet = ctx.wallets.find(walletId);
  if (!wallet) throw new DepositError('INVALID_WALLET_ACCOUNT_ID', `No wallet account ${walletId}`);
  let amountMinor: number;
  try {
    amountMinor = toMinorUnits(request.amount, wallet.currency);
  } catch (error) {
    if (error instanceof AmountError)
      throw new DepositError('BAD_REQUEST', 'Invalid JSON request', [`amount: ${error.message}`]);
    throw error;
  }

  const now = ctx.clock.now();
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
    sealedCredentials: await ctx.vault.seal(id, credentials),
    retries: 0,
    history: [{ step: 'resolve-bank', status: 'initialized', at: now }],
    createdAt: now,
    updatedAt: now,
    checkAt: now + ctx.settings.stallAfterMs,
  };

  const outcome = await ctx.idempotency.createOnce(deposit);
  if (outcome.created) {
    ctx.observer?.transitioned(deposit.status, deposit.step);
    await sendStep(ctx, deposit, 'resolve-bank');
    return { status: 202, body: depositView(deposit, now) };
  }
  const existing = outcome.depositId ? await ctx.deposits.get(outcome.depositId) : undefined;
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
    const resumed = await resume(ctx, existing, request.userInputs);
    return { status: 200, body: depositView(resumed, ctx.clock.now()) };
  }
  return { status: 200, body: depositView(existing, now) };
}

/** The caller's answers: sealed on the deposit, which goes back to the step that asked. */
async function resume(ctx: StartContext, deposit: Deposit, userInputs: UserInput[]): Promise<Deposit> {
  if (deposit.pendingInput && ctx.clock.now() >= deposit.pendingInput.expiresAt) {
    const msg = 'The answer came after the deposit stopped waiting';
    return (await fail(ctx, deposit, 'INPUT_EXPIRED', msg)) ?? deposit;
  }
  const step = deposit.step;
  if (step === 'wait-cooldown' || step === 'completed') {
    throw new Error(`deposit ${deposit.id} waits for input at ${step}, which asks none`);
  }
  const sealedAnswers = await ctx.vault.seal(deposit.id, userInputs);
  const next = await advance(ctx, deposit, { status: 'initialized', sealedAnswers }, 'input answered');
  if (!next) return (await ctx.deposits.get(deposit.id)) ?? deposit;
  await sendStep(ctx, next, step);
  return next;
}
