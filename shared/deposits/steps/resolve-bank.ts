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
import { isCurrencyCode, toMinorUnits } from '#shared/money';
import { ProviderRefusal } from '#shared/provider/client';
import { periodMs } from '#shared/provider/interface/period';
import type { AccountsMetadata } from '#shared/provider/interface/schemas';
import { callUnderLease } from '../connection.ts';
import { answerFor, askAgain, asksAgain, LATE_ANSWERS, pauseForInput, SPENT_ANSWERS } from '../input.ts';
import { type BankFacts, type Deposit, isSource, type WalletAccount } from '../model.ts';
import type { StepContext } from '../step-context.ts';
import { advance, fail, sendStep } from '../transitions.ts';
import { walletOf } from '../wallets.ts';

/** What resolve-bank touches: its line in `reach.ts`. */
export type ResolveBankContext = StepContext<'resolve-bank'>;

export async function resolveBank(deposit: Deposit, ctx: ResolveBankContext): Promise<void> {
  const answer = await answerFor(ctx, deposit, 'metadata');
  const remembered = answer ? undefined : await ctx.banks.recall(deposit.ownerKey, ctx.clock.now());
  if (remembered) return goOn(ctx, deposit, remembered, 'bank remembered');
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
    await ctx.banks.remember(deposit.ownerKey, accountsMetadata, ctx.clock.now() + memoryMs);
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
  // A source moves no money: only whether the bank moves the wallet's currency is checked.
  const amountMinor = isSource(deposit) ? undefined : deposit.amountMinor;
  const refusal = checkBounds(accountsMetadata, walletOf(ctx.wallets, deposit), amountMinor);
  if (refusal) {
    await fail(ctx, deposit, refusal.type, refusal.msg);
    return;
  }

  const bank: BankFacts = {
    swiftCode: accountsMetadata.swiftCode,
    bankName: accountsMetadata.bankName,
    isCreateBeneficiaryEndpointRequired: accountsMetadata.isCreateBeneficiaryEndpointRequired,
    hidesNewBeneficiaries: !accountsMetadata.willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod,
    coolDownMs: periodMs(accountsMetadata.beneficiaryCoolDownPeriod),
  };
  const step = bank.isCreateBeneficiaryEndpointRequired ? 'ensure-beneficiary' : 'transfer';
  const changes: Partial<Deposit> = { step, bank, pendingInput: undefined, sealedAnswers: undefined };
  const next = await advance(ctx, deposit, changes, `${said}: ${bank.bankName}`);
  if (next) await sendStep(ctx, next, step);
}

/**
 * The bank's minimum for this transfer, and a currency the bank handles: a bank that publishes no
 * bounds in the wallet's currency has not said it moves that currency, so the money is not sent.
 */
export function checkBounds(
  metadata: AccountsMetadata,
  wallet: WalletAccount,
  amountMinor: number | undefined,
) {
  const sameBank = (code: string) => code.trim().toUpperCase().slice(0, 8);
  const type = sameBank(wallet.inline.swiftCode) === sameBank(metadata.swiftCode) ? 'same' : 'local';
  const bounds = metadata.transferBounds.filter((bound) => bound.currency.code === wallet.currency);
  if (bounds.length === 0) {
    return { type: 'CURRENCY_NOT_SUPPORTED', msg: `The bank does not transfer ${wallet.currency}` };
  }
  const bound = bounds.find((candidate) => candidate.type === type);
  if (
    bound &&
    amountMinor !== undefined &&
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
