/**
 * resolve-bank, the first step of every deposit:
 *   1. the bank's metadata as remembered for this connection (`bankMemoryMs`), else: takes the
 *      connection's lease and asks the bank (retried while busy or unknown), with the caller's
 *      answers if the bank asked a question on it before, and remembers what it said;
 *   2. a question from the bank: the deposit waits for the caller;
 *   3. checks the wallet's currency and the amount against the bank's transferBounds (a payment
 *      source, which moves no money, the currency only);
 *   4. records the bank's facts, and moves to ensure-beneficiary when the bank wants beneficiaries
 *      created, else straight to the transfer.
 */
import { ProviderRefusal } from '#shared/provider/client';
import type { AccountsMetadata } from '#shared/provider/interface/schemas';
import { bankFactsOf, checkBounds } from '../bank-facts.ts';
import { callUnderLease } from '../connection.ts';
import { answerFor, askAgain, asksAgain, LATE_ANSWERS, pauseForInput, SPENT_ANSWERS } from '../input.ts';
import { type Deposit, isSource } from '../model.ts';
import type { StepContext } from '../step-context.ts';
import { advance, fail, sendStep } from '../transitions.ts';
import { walletOf } from '../wallets.ts';

/** What resolve-bank touches: its line in `reach.ts`. */
export type ResolveBankContext = StepContext<'resolve-bank'>;

export async function resolveBank(deposit: Deposit, ctx: ResolveBankContext): Promise<void> {
  const answer = await answerFor(ctx, deposit, 'metadata');
  const remembered = answer ? undefined : await ctx.banks.recall(deposit, ctx.clock.now());
  // What is remembered never refuses the money on its own: an amount (or a currency) it refuses is
  // asked of the bank, whose word decides and is remembered in its place.
  if (remembered && !boundsRefuse(ctx, deposit, remembered))
    return goOn(ctx, deposit, remembered, 'bank remembered');
  const called = await callUnderLease(
    ctx,
    deposit,
    'resolve-bank',
    answer ? [SPENT_ANSWERS, LATE_ANSWERS] : [],
    (credentials) => ctx.provider.getMetadata(credentials, answer),
  );
  if (!called) return;
  const { value: metadata, lease } = called;
  if (!(metadata instanceof ProviderRefusal) && metadata.status === 'user_input_required') {
    await pauseForInput(ctx, deposit, 'resolve-bank', metadata, { operation: 'metadata', lease });
    return;
  }
  await ctx.leases.release(deposit.ownerKey, lease);
  if (metadata instanceof ProviderRefusal && answer && asksAgain(metadata)) {
    await askAgain(ctx, deposit, 'resolve-bank', metadata);
    return;
  }
  if (metadata instanceof ProviderRefusal) {
    await fail(ctx, deposit, metadata.type, metadata.msg);
    return;
  }
  const accountsMetadata = metadata.response.accountsMetadata;
  if (metadata.status !== 'done' || !accountsMetadata) {
    await fail(ctx, deposit, 'PROVIDER_PROTOCOL_ERROR', 'The bank metadata came without accountsMetadata');
    return;
  }
  // What a source learns serves the deposits it prepares, for longer than what a deposit learns.
  const memoryMs = isSource(deposit) ? ctx.settings.sourceBankMemoryMs : ctx.settings.bankMemoryMs;
  if (memoryMs > 0) {
    await ctx.banks.remember(deposit, accountsMetadata, ctx.clock.now() + memoryMs);
  }
  return goOn(ctx, deposit, accountsMetadata, 'bank');
}

/** With the bank's metadata: the bounds checked, its facts recorded, on to the next step. */
async function goOn(
  ctx: ResolveBankContext,
  deposit: Deposit,
  accountsMetadata: AccountsMetadata,
  said: string,
) {
  const refusal = boundsRefuse(ctx, deposit, accountsMetadata);
  if (refusal) {
    await fail(ctx, deposit, refusal.type, refusal.msg);
    return;
  }

  const bank = bankFactsOf(accountsMetadata);
  const step = bank.isCreateBeneficiaryEndpointRequired ? 'ensure-beneficiary' : 'transfer';
  const changes: Partial<Deposit> = { step, bank, pendingInput: undefined, sealedAnswers: undefined };
  const next = await advance(ctx, deposit, changes, `${said}: ${bank.bankName}`);
  if (next) await sendStep(ctx, next, step);
}

/** What the bank's bounds say of the deposit: a source moves no money, and only its currency is checked. */
function boundsRefuse(ctx: ResolveBankContext, deposit: Deposit, accountsMetadata: AccountsMetadata) {
  const amountMinor = isSource(deposit) ? undefined : deposit.amountMinor;
  return checkBounds(accountsMetadata, walletOf(ctx.wallets, deposit), amountMinor);
}
