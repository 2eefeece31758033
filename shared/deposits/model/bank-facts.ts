/**
 * What the bank's metadata says for a deposit, without asking anything: the facts the deposit keeps
 * of its bank, and whether the bank moves this amount in the wallet's currency. resolve-bank applies
 * them to what the bank said or what it remembered; the create to what it remembered
 * (`known-route.ts`).
 */
import { isCurrencyCode, toMinorUnits } from '#shared/money';
import { periodMs } from '#shared/provider/interface/period';
import type { AccountsMetadata } from '#shared/provider/interface/schemas';
import type { BankFacts, WalletAccount } from './deposit.ts';

/** The facts a deposit keeps of its bank. */
export function bankFactsOf(metadata: AccountsMetadata): BankFacts {
  return {
    swiftCode: metadata.swiftCode,
    bankName: metadata.bankName,
    isCreateBeneficiaryEndpointRequired: metadata.isCreateBeneficiaryEndpointRequired,
    hidesNewBeneficiaries: !metadata.willNewlyAddedBeneficiaryExistBeforeCoolDownPeriod,
    coolDownMs: periodMs(metadata.beneficiaryCoolDownPeriod),
  };
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
