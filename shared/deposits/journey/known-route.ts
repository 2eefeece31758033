/**
 * A deposit whose way to the transfer is known when it is created: its connection's bank is
 * remembered (resolve-bank would recall it and ask the bank nothing) and, at a bank that wants
 * beneficiaries, ours is on record with its id and its cool-down over (ensure-beneficiary would use
 * it and ask nothing). Such a deposit (a repeat, most often) starts at the transfer: two steps that
 * call nothing are not run. Anything else starts at resolve-bank as always: a payment source, a bank
 * not remembered, a beneficiary not known yet or still cooling down, and an amount the remembered
 * bank does not move (resolve-bank fails it, with its event). The bank is remembered per connection
 * and user secret (`MemoryOwner`): another user secret on the same token takes no remembered route.
 */
import { bankFactsOf, checkBounds } from '../model/bank-facts.ts';
import { type Deposit, isSource, type WalletAccount } from '../model/deposit.ts';
import type { BankMemory, BeneficiaryClaims } from '../ports/connection.ts';

export interface KnownRouteContext {
  banks: Pick<BankMemory, 'recall'>;
  claims: Pick<BeneficiaryClaims, 'get'>;
}

/** What the new deposit starts with when its way is known (at the transfer), else undefined. */
export async function knownRoute(
  ctx: KnownRouteContext,
  deposit: Deposit,
  wallet: WalletAccount,
  now: number,
): Promise<Partial<Deposit> | undefined> {
  if (isSource(deposit)) return undefined;
  const [metadata, claim] = await Promise.all([
    ctx.banks.recall(deposit, now),
    ctx.claims.get(deposit.ownerKey, deposit.walletAccountId),
  ]);
  if (!metadata || checkBounds(metadata, wallet, deposit.amountMinor)) return undefined;
  const bank = bankFactsOf(metadata);
  const straight = { step: 'transfer' as const, status: 'initialized' as const };
  if (!bank.isCreateBeneficiaryEndpointRequired) {
    return {
      ...straight,
      bank,
      history: [{ ...straight, at: now, note: `bank remembered: ${bank.bankName}` }],
    };
  }
  if (claim?.state !== 'created' || !claim.beneficiaryId) return undefined;
  const cooldownUntil = claim.cooldownUntil ?? now;
  if (cooldownUntil > now) return undefined;
  return {
    ...straight,
    bank,
    beneficiaryId: claim.beneficiaryId,
    cooldownUntil,
    beneficiaryWork: { sendDetails: !claim.used },
    history: [{ ...straight, at: now, note: `bank and beneficiary remembered: ${bank.bankName}` }],
  };
}
