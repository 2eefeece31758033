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
 * Taking the lease and calling the bank is its phase (`callUnderLease`); what follows the bank's
 * answer, or what it remembered, is a decision (`afterMetadata`, `withBank`) that `apply` makes so.
 */
import { ProviderRefusal } from '#shared/provider/client';
import type { AccountsMetadata } from '#shared/provider/interface/schemas';
import { callUnderLease } from '../journey/connection.ts';
import { answerFor, asksAgain, LATE_ANSWERS, type Question, SPENT_ANSWERS } from '../journey/input.ts';
import { after, apply, type Next } from '../journey/next.ts';
import { bankFactsOf, checkBounds } from '../model/bank-facts.ts';
import { type Deposit, isSource, type WalletAccount } from '../model/deposit.ts';
import { walletOf } from '../model/wallets.ts';
import type { DepositSettings } from '../ports/settings.ts';
import type { StepContext } from '../step-context.ts';

/** What resolve-bank touches: its line in `reach.ts`. */
export type ResolveBankContext = StepContext<'resolve-bank'>;

export async function resolveBank(deposit: Deposit, ctx: ResolveBankContext): Promise<void> {
  const wallet = walletOf(ctx.wallets, deposit);
  const answer = await answerFor(ctx, deposit, 'metadata');
  const remembered = answer ? undefined : await ctx.banks.recall(deposit, ctx.clock.now());
  // What is remembered never refuses the money on its own: an amount (or a currency) it refuses is
  // asked of the bank, whose word decides and is remembered in its place.
  if (remembered && !boundsRefuse(deposit, wallet, remembered)) {
    await apply(ctx, deposit, withBank(deposit, wallet, remembered, 'bank remembered'));
    return;
  }
  const called = await callUnderLease(
    ctx,
    deposit,
    'resolve-bank',
    answer ? [SPENT_ANSWERS, LATE_ANSWERS] : [],
    (credentials) => ctx.provider.getMetadata(credentials, answer),
  );
  if ('next' in called) {
    await apply(ctx, deposit, called.next);
    return;
  }
  const said = { metadata: called.value, lease: called.lease, answered: answer !== undefined };
  await apply(ctx, deposit, afterMetadata(deposit, wallet, said, ctx.clock.now(), ctx.settings));
}

/** What the bank answered to the metadata call, under the lease, and whether it carried answers. */
export interface MetadataSaid {
  metadata: Awaited<ReturnType<ResolveBankContext['provider']['getMetadata']>> | ProviderRefusal;
  lease: string;
  answered: boolean;
}

/** What follows the bank's answer: a question, answers refused, a refusal, or its metadata. */
export function afterMetadata(
  deposit: Deposit,
  wallet: WalletAccount,
  { metadata, lease, answered }: MetadataSaid,
  now: number,
  settings: Pick<DepositSettings, 'bankMemoryMs' | 'sourceBankMemoryMs'>,
): Next {
  if (!(metadata instanceof ProviderRefusal) && metadata.status === 'user_input_required') {
    const question: Question = metadata;
    return { kind: 'ask', step: 'resolve-bank', question, operation: 'metadata', also: {}, lease };
  }
  const freed = [{ lease: 'release' as const, held: lease }];
  if (metadata instanceof ProviderRefusal && answered && asksAgain(metadata))
    return { kind: 'ask-again', step: 'resolve-bank', refusal: metadata, changes: {}, before: freed };
  if (metadata instanceof ProviderRefusal)
    return { kind: 'fail', type: metadata.type, msg: metadata.msg, before: freed };
  const accountsMetadata = metadata.response.accountsMetadata;
  if (metadata.status !== 'done' || !accountsMetadata) {
    const msg = 'The bank metadata came without accountsMetadata';
    return { kind: 'fail', type: 'PROVIDER_PROTOCOL_ERROR', msg, before: freed };
  }
  // What a source learns serves the deposits it prepares, for longer than what a deposit learns.
  const memoryMs = isSource(deposit) ? settings.sourceBankMemoryMs : settings.bankMemoryMs;
  const remembered =
    memoryMs > 0 ? [{ banks: 'remember' as const, metadata: accountsMetadata, until: now + memoryMs }] : [];
  const next = withBank(deposit, wallet, accountsMetadata, 'bank');
  // On to the next step, which the call's lease passes to when it calls the bank first (`apply`).
  if (next.kind === 'move') return after(remembered, { ...next, lease });
  return after([...freed, ...remembered], next);
}

/** With the bank's metadata: the bounds checked, its facts recorded, on to the next step. */
export function withBank(
  deposit: Deposit,
  wallet: WalletAccount,
  accountsMetadata: AccountsMetadata,
  said: string,
): Next {
  const refusal = boundsRefuse(deposit, wallet, accountsMetadata);
  if (refusal) return { kind: 'fail', type: refusal.type, msg: refusal.msg };
  const bank = bankFactsOf(accountsMetadata);
  const step = bank.isCreateBeneficiaryEndpointRequired ? 'ensure-beneficiary' : 'transfer';
  const changes: Partial<Deposit> = { step, bank, pendingInput: undefined, sealedAnswers: undefined };
  return { kind: 'move', changes, note: `${said}: ${bank.bankName}`, send: { step } };
}

/** What the bank's bounds say of the deposit: a source moves no money, and only its currency is checked. */
function boundsRefuse(deposit: Deposit, wallet: WalletAccount, accountsMetadata: AccountsMetadata) {
  const amountMinor = isSource(deposit) ? undefined : deposit.amountMinor;
  return checkBounds(accountsMetadata, wallet, amountMinor);
}
